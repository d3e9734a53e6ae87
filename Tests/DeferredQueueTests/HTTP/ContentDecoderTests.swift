import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import DeferredQueue

@Suite("ContentDecoder: bounded steps, every coding it names, nothing else")
struct ContentDecoderTests {
    private static let hello = Data("hello, world".utf8)
    private static func bytes(_ base64: String) -> Data { Data(base64Encoded: base64) ?? Data() }
    private static let gzip = bytes("H4sIABToBmsC/8tIzcnJ11Eozy/KSQEAOnKr/wwAAAA=")
    private static let zlib = bytes("eNrLSM3JyddRKM8vykkBAB1UBIk=")
    private static let rawDeflate = bytes("y0jNycnXUSjPL8pJAQA=")

    /// Feeds `input` a byte at a time and reads `step` bytes at a time.
    private func decode(_ input: Data, encoding: String, step: Int = 3) throws -> Data {
        let decoder = try #require(try ContentDecoder(contentEncoding: encoding))
        var output = Data()
        for byte in input {
            decoder.feed(Data([byte]))
            while let piece = try decoder.read(upTo: step) {
                #expect(piece.count <= step, "never more than asked for")
                output.append(piece)
            }
        }
        try decoder.finish()
        return output
    }

    @Test func gzipZlibAndRawDeflateBodiesDecodeAStepAtATime() throws {
        #expect(try decode(Self.gzip, encoding: "gzip") == Self.hello)
        #expect(try decode(Self.gzip, encoding: "x-gzip") == Self.hello)
        #expect(try decode(Self.zlib, encoding: "deflate") == Self.hello)
        #expect(try decode(Self.rawDeflate, encoding: "deflate") == Self.hello)
    }

    @Test func nestedCodingsAreUndoneLastFirst() throws {
        let twice = Self.bytes(Self.gzipOfGzip)
        #expect(try decode(twice, encoding: "gzip, identity, gzip") == Self.hello)
    }

    @Test func anUnencodedBodyNeedsNoDecoder() throws {
        #expect(try ContentDecoder(contentEncoding: nil) == nil)
        #expect(try ContentDecoder(contentEncoding: " identity ") == nil)
    }

    @Test func unknownCodingsAndTooManyLayersAreRefused() {
        #expect(throws: URLError.self) { try ContentDecoder(contentEncoding: "br") }
        #expect(throws: URLError.self) { try ContentDecoder(contentEncoding: "gzip, compress") }
        let layers = Array(repeating: "gzip", count: ContentDecoder.maximumLayers + 1).joined(separator: ", ")
        #expect(throws: URLError.self) { try ContentDecoder(contentEncoding: layers) }
    }

    @Test func aBodyCutShortOrCorruptFails() throws {
        #expect(throws: URLError.self) { try decode(Self.gzip.prefix(Self.gzip.count - 4), encoding: "gzip") }
        var corrupt = Self.gzip
        corrupt[12] ^= 0xFF
        #expect(throws: URLError.self) { try decode(corrupt, encoding: "gzip") }
    }

    private static let gzipOfGzip = "H4sIAB7oBmsC/5Pv5mCQe8GWzfT/tMfZkyevB2qc1z/lychgVbT6Pw8DAwMAOQ93jyAAAAA="
}
