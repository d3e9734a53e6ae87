import Foundation
import Testing

@testable import DeferredQueue

@Suite("Text decoding")
struct TextDecodingTests {
    /// "café" in ISO-8859-1: not valid UTF-8.
    let latin1Cafe = Data([0x63, 0x61, 0x66, 0xE9])

    private func text(_ data: Data, explicit: String.Encoding? = nil, contentType: String? = nil) -> String? {
        try? decodeText(data, explicit: explicit, contentType: contentType).get()
    }

    private func failedEncoding(_ data: Data, explicit: String.Encoding? = nil, contentType: String? = nil) -> String.Encoding? {
        guard case .failure(.responseSerializationFailed(.stringEncodingFailed(let encoding))) =
            decodeText(data, explicit: explicit, contentType: contentType)
        else { return nil }
        return encoding
    }

    @Test func utf8IsTheDefaultAndItsByteOrderMarkIsDropped() {
        #expect(text(Data("日本 😀".utf8)) == "日本 😀")
        #expect(text(Data([0xEF, 0xBB, 0xBF] + Array("x".utf8)), contentType: "text/plain") == "x")
        #expect(text(Data([0xEF, 0xBB, 0xBF, 0x79]), contentType: "text/plain; charset=utf-8") == "y")
        #expect(text(Data()) == "")
        #expect(text(Data(), contentType: "text/plain; charset=shift_jis") == "")
    }

    @Test func latin1BodyWithoutCharsetFallsBackToLatin1() {
        #expect(text(latin1Cafe) == "café")
        #expect(text(latin1Cafe, contentType: "text/html") == "café")
        #expect(text(Data((0...255).map { UInt8($0) }))?.unicodeScalars.count == 256)
    }

    @Test func latin1BodyWithDeclaredCharsetDecodes() {
        #expect(text(latin1Cafe, contentType: "text/plain; charset=ISO-8859-1") == "café")
        #expect(text(latin1Cafe, contentType: "text/plain;charset=latin1") == "café")
        #expect(text(Data([0x80]), contentType: "text/plain; charset=windows-1252") == "€")
    }

    @Test func declaredCharsetThatDoesNotFitIsAnError() {
        #expect(failedEncoding(latin1Cafe, contentType: "text/plain; charset=utf-8") == .utf8)
        #expect(failedEncoding(latin1Cafe, contentType: "text/plain; charset=us-ascii") == .ascii)
        #expect(failedEncoding(Data([0x00, 0x41, 0x00]), contentType: "text/plain; charset=utf-16be") == .utf16BigEndian)
        #expect(failedEncoding(Data([0xD8, 0x00]), contentType: "text/plain; charset=utf-16be") == .utf16BigEndian)
        #expect(failedEncoding(Data([0x82]), contentType: "text/plain; charset=Shift_JIS") == .shiftJIS)
    }

    @Test func explicitEncodingWins() {
        #expect(text(latin1Cafe, explicit: .isoLatin1, contentType: "text/plain; charset=utf-8") == "café")
        #expect(text(Data("é".utf8), explicit: .isoLatin1) == "Ã©")
        #expect(failedEncoding(latin1Cafe, explicit: .utf8, contentType: "text/plain; charset=iso-8859-1") == .utf8)
        #expect(failedEncoding(latin1Cafe, explicit: .utf8) == .utf8)
    }

    @Test func unknownCharsetIsTreatedAsUndeclared() {
        #expect(text(Data("ok".utf8), contentType: "text/plain; charset=x-made-up") == "ok")
        #expect(text(latin1Cafe, contentType: "text/plain; charset=x-made-up") == "café")
    }

    @Test func shiftJISDecodesWhenDeclared() {
        let aiueo = Data([0x82, 0xA0, 0x82, 0xA2, 0x82, 0xA4, 0x41])  // "あいうA"
        #expect(text(aiueo, contentType: "text/html; charset=Shift_JIS") == "あいうA")
        #expect(text(aiueo, contentType: "text/html; charset=\"shift-jis\"") == "あいうA")
        #expect(text(aiueo, contentType: "text/html; charset=windows-31j") == "あいうA")
    }

    @Test func iso2022JPDecodesWhenDeclared() {
        let a = Data([0x1B, 0x24, 0x42, 0x24, 0x22, 0x1B, 0x28, 0x42])  // "あ"
        #expect(text(a, contentType: "text/plain; charset=ISO-2022-JP") == "あ")
    }

    @Test func eucJPDecodesWhereFoundationSupportsIt() {
        let a = Data([0xA4, 0xA2])  // "あ"
        if String(data: a, encoding: .japaneseEUC) != nil {
            #expect(text(a, contentType: "text/plain; charset=EUC-JP") == "あ")
        } else {
            // swift-corelibs-foundation on Linux does not implement EUC-JP: a clear error, not mojibake.
            #expect(failedEncoding(a, contentType: "text/plain; charset=EUC-JP") == .japaneseEUC)
        }
    }

    @Test func utf16FollowsTheByteOrderMarkOrTheDeclaredOrder() {
        #expect(text(Data([0xFF, 0xFE, 0x41, 0x00, 0xE9, 0x00]), contentType: "text/plain; charset=utf-16") == "Aé")
        #expect(text(Data([0xFE, 0xFF, 0x00, 0x41]), contentType: "text/plain; charset=UTF-16") == "A")
        #expect(text(Data([0x00, 0x41]), contentType: "text/plain; charset=utf-16") == "A")
        #expect(text(Data([0x41, 0x00]), contentType: "text/plain; charset=utf-16le") == "A")
        #expect(text(Data([0xFF, 0xFE, 0x41, 0x00]), contentType: "text/plain; charset=utf-16le") == "A")
        #expect(text(Data([0x00, 0x41]), contentType: "text/plain; charset=utf-16be") == "A")
        #expect(text(Data([0xFF, 0xFE, 0x41, 0x00])) == "A")  // undeclared, sniffed from the byte order mark
        #expect(failedEncoding(Data([0xFF, 0xFE, 0x41]), contentType: "text/plain; charset=utf-16") == .utf16)
    }

    @Test func charsetParameterIsFoundInAnyShape() {
        #expect(charset(fromContentType: "text/html; charset=UTF-8") == "utf-8")
        #expect(charset(fromContentType: "text/html;CHARSET=\"Shift_JIS\"") == "shift_jis")
        #expect(charset(fromContentType: "multipart/form-data; boundary=\"a;charset=b\"; Charset = \"utf\\-8\" ") == "utf-8")
        #expect(charset(fromContentType: "application/json") == nil)
        #expect(charset(fromContentType: "text/plain; charset=") == nil)
        #expect(charset(fromContentType: "text/plain; charset=\"") == nil)
        #expect(charset(fromContentType: "text/plain; format=flowed") == nil)
        #expect(charset(fromContentType: nil) == nil)
        #expect(charset(fromContentType: "") == nil)
    }

    @Test func charsetLabelsMapToFoundationEncodings() {
        let expected: [String: String.Encoding] = [
            "UTF-8": .utf8, "utf8": .utf8, "utf-16": .utf16, "utf-16le": .utf16LittleEndian, "UTF-16BE": .utf16BigEndian,
            "iso-8859-1": .isoLatin1, "Latin1": .isoLatin1, "us-ascii": .ascii, "windows-1252": .windowsCP1252,
            "Shift_JIS": .shiftJIS, "euc-jp": .japaneseEUC, "iso-2022-jp": .iso2022JP,
        ]
        for (label, encoding) in expected {
            #expect(stringEncoding(forCharset: label) == encoding, "\(label)")
        }
        #expect(stringEncoding(forCharset: "klingon") == nil)
    }
}
