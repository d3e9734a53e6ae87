import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

@Suite("Download file names: whatever the response says, one safe path component")
struct DownloadFileNameTests {
    private func response(_ url: String, disposition: String? = nil) throws -> HTTPURLResponse {
        let url = try #require(URL(string: url))
        return try #require(HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                                            headerFields: disposition.map { ["Content-Disposition": $0] } ?? [:]))
    }

    @Test(arguments: [
        ("../.bashrc", "_.bashrc"), ("..", nil), (".", nil), ("...", nil), ("", nil), (" . . ", nil),
        ("/etc/passwd", "_etc_passwd"), ("C:\\Windows\\win.ini", "C__Windows_win.ini"), ("a\u{0}b", "a_b"),
        ("tab\there", "tab_here"), ("\u{202E}gpj.exe", "_gpj.exe"), ("a\u{2215}b\u{FF0F}c", "a_b_c"),
        (".hidden", "hidden"), ("trailing. ", "trailing"), ("report 2024.pdf", "report 2024.pdf"), ("日本語.txt", "日本語.txt"),
    ] as [(String, String?)])
    func namesAreReducedToOneSafeComponent(_ input: String, _ expected: String?) {
        #expect(DownloadFileName.sanitized(input) == expected)
    }

    @Test func aLongNameIsBoundedAndKeepsItsExtension() throws {
        let name = try #require(DownloadFileName.sanitized(String(repeating: "日", count: 200) + ".tar.gz"))
        #expect(name.utf8.count <= DownloadFileName.maximumLength)
        #expect(name.hasSuffix("日.gz"))
        let noExtension = try #require(DownloadFileName.sanitized(String(repeating: "a", count: 1000)))
        #expect(noExtension.utf8.count == DownloadFileName.maximumLength)
    }

    @Test func theURLsLastSegmentIsDecodedOnceAfterSplitting() throws {
        #expect(DownloadFileName.suggested(by: try response("http://h/dl/..%2F.bashrc")) == "_.bashrc")
        #expect(DownloadFileName.suggested(by: try response("http://h/dl/..%252F.bashrc")) == "%2F.bashrc")
        #expect(DownloadFileName.suggested(by: try response("http://h/dl/%2E%2E")) == DownloadFileName.fallback)
        #expect(DownloadFileName.suggested(by: try response("http://h/")) == DownloadFileName.fallback)
        #expect(DownloadFileName.suggested(by: try response("http://h/a/report.pdf?x=../y")) == "report.pdf")
    }

    @Test func contentDispositionPrefersTheExtendedNameAndFallsBackPastUnusableOnes() throws {
        let url = "http://h/dl/url-name.bin"
        #expect(DownloadFileName.suggested(by: try response(url, disposition: "attachment; filename=\"a.txt\"; filename*=UTF-8''%E2%82%AC.txt")) == "€.txt")
        #expect(DownloadFileName.suggested(by: try response(url, disposition: "attachment; filename*=koi8-r''x.txt; filename=plain.txt")) == "plain.txt")
        #expect(DownloadFileName.suggested(by: try response(url, disposition: "attachment; filename=\"..\"")) == "url-name.bin")
        #expect(DownloadFileName.suggested(by: try response(url, disposition: "inline")) == "url-name.bin")
    }

    @Test func contentDispositionParametersHonourQuotesAndEscapes() {
        let parameters = ContentDisposition.parameters(of: #"attachment; FileName="a;b \"c\".txt" ; size=12; filename=second"#)
        #expect(parameters["filename"] == #"a;b "c".txt"#)
        #expect(parameters["size"] == "12")
        #expect(ContentDisposition.decodeExtendedValue("ISO-8859-1'en'%A3%20rates") == "£ rates")
        #expect(ContentDisposition.decodeExtendedValue("UTF-8''%C0%AF") == "\u{FFFD}\u{FFFD}")
        #expect(ContentDisposition.decodeExtendedValue("no-quotes") == nil)
    }

    @Test func theSearchPathDestinationUsesTheSameSafeName() throws {
        let destination = DownloadRequest.suggestedDownloadDestination(for: .cachesDirectory)
        let (target, _) = destination(URL(fileURLWithPath: "/tmp/x"), try response("http://h/dl/..%2F..%2F.profile"))
        #expect(target.lastPathComponent == "_.._.profile")
        let base = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first ?? FileManager.default.temporaryDirectory
        #expect(target.deletingLastPathComponent().path == base.path)
    }
}
