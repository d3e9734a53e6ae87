import Foundation
import TestSupport
import Testing
@testable import DeferredQueue

/// `responseString`'s decoder fed seeded random and mutated bytes with random
/// declared charsets and explicit encodings. The JSON parser gets the same
/// treatment in `JSONTests.fuzzedBytesGiveAValueOrAnErrorAndValuesRoundTrip`.
@Suite("Fuzz: text decoding never crashes and fails only with a clear encoding error")
struct TextDecodingFuzzTests {
    /// Texts to mutate, in the encodings a server might really send.
    ///
    /// Built per test rather than kept in a `static let`: LeakSanitizer cannot
    /// see the pointers inside an array of `Data` held by a global (Swift packs
    /// them into enum payloads) and would report the storage as leaked.
    static func makeSeeds() -> [Data] {
        let texts = ["héllo wörld", "日本語のテキスト", "plain ascii", "Ελληνικά and ümlauts", "emoji 🎉 and \u{0}"]
        let encodings: [String.Encoding] = [.utf8, .utf16, .utf16LittleEndian, .utf16BigEndian, .isoLatin1, .shiftJIS, .iso2022JP]
        return texts.flatMap { text in encodings.compactMap { text.data(using: $0) } }
            + [Data([0xEF, 0xBB, 0xBF]) + Data("bom".utf8), Data([0xFF, 0xFE, 0x41]), Data()]
    }

    /// Content-Type values: known, unknown, oddly shaped and broken charset parameters.
    static let contentTypes: [String?] = [
        nil, "text/plain", "text/plain; charset=utf-8", "text/html; Charset=\"Shift_JIS\"", "text/plain;charset=ISO-8859-1",
        "text/plain; charset=utf-16le", "text/plain; charset=utf-16", "text/plain; charset=us-ascii",
        "text/plain; charset=euc-jp", "text/plain; charset=iso-2022-jp", "text/plain; charset=windows-1252",
        "text/plain; charset=x-unknown-charset", "text/plain; charset=", "text/plain; charset=\"unterminated",
        "text/plain; charset", ";;;=;", "text/plain; charset=\"\\\"\"", "text/plain; charset=latin2; charset=utf-8",
    ]

    static let explicitEncodings: [String.Encoding?] = [
        nil, nil, nil, .utf8, .utf16, .utf16LittleEndian, .ascii, .isoLatin1, .shiftJIS, .japaneseEUC, .iso2022JP, .windowsCP1251,
    ]

    @Test func tenThousandFuzzedBodiesGiveTextOrAClearEncodingError() {
        var random = SeededRandom(seed: 0xDEC0_DE00)
        let seeds = Self.makeSeeds()
        var texts = 0
        var errors = 0
        var unexpected: [String] = []
        for iteration in 0..<10_000 {
            let body = iteration.isMultiple(of: 3) ? Self.randomBytes(using: &random) : Self.mutated(seeds, using: &random)
            let contentType = Self.contentTypes.randomElement(using: &random) ?? nil
            let explicit = Self.explicitEncodings.randomElement(using: &random) ?? nil
            let effective = explicit ?? charset(fromContentType: contentType).flatMap(stringEncoding(forCharset:))
            switch decodeText(body, explicit: explicit, contentType: contentType) {
            case .success(let text):
                texts += 1
                if effective == .utf8, let strict = String(data: body, encoding: .utf8),
                   text != strict && "\u{FEFF}" + text != strict {
                    unexpected.append("#\(iteration): UTF-8 decoded differently")
                }
            case .failure(let error):
                errors += 1
                guard case .responseSerializationFailed(.stringEncodingFailed(let encoding)) = error,
                      effective != nil, encoding == effective,
                      error.description.contains("not valid text in the encoding")
                else {
                    unexpected.append("#\(iteration): \(error.kind) for \(String(describing: effective))")
                    continue
                }
            }
        }
        print("decoded 10000 fuzzed bodies: \(texts) texts, \(errors) encoding errors")
        #expect(unexpected.isEmpty, "\(unexpected.count) unexpected: \(unexpected.prefix(5))")
        #expect(texts > 1_000 && errors > 100, "the fuzz reaches both outcomes")
    }

    @Test func withoutADeclaredOrExplicitCharsetDecodingNeverFails() {
        var random = SeededRandom(seed: 0x1A71_0001)
        for _ in 0..<2_000 {
            let body = Self.randomBytes(using: &random)
            let result = decodeText(body, explicit: nil, contentType: "application/octet-stream")
            #expect((try? result.get()) != nil, "UTF-8, else UTF-16 by BOM, else Latin-1 always decodes")
        }
    }

    // MARK: - Inputs

    private static func randomBytes(using random: inout SeededRandom) -> Data {
        let count = Int.random(in: 0...300, using: &random)
        // Bias towards ASCII and UTF-8 lead bytes so some bodies are valid text.
        return Data((0..<count).map { _ in
            Bool.random(using: &random) ? UInt8.random(in: 0x20...0x7E, using: &random) : UInt8.random(in: 0...255, using: &random)
        })
    }

    private static func mutated(_ seeds: [Data], using random: inout SeededRandom) -> Data {
        var bytes = [UInt8](seeds.randomElement(using: &random) ?? Data())
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where !bytes.isEmpty:  // flip a byte
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= UInt8.random(in: 1...255, using: &random)
            case 1:  // insert a byte
                bytes.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
            case 2 where !bytes.isEmpty:  // delete a byte
                bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random))
            default:  // truncate
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            }
        }
        return Data(bytes)
    }
}
