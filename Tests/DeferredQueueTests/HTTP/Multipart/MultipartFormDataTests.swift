@testable import DeferredQueue
import Dispatch
import Foundation
import LoopbackServer
import Testing

@Suite("MultipartFormData encoding")
struct MultipartFormDataTests {
    @Test func textFieldsAndFilesArriveWithTheirNamesFileNamesTypesAndBodies() throws {
        let directory = try TemporaryDirectory()
        let png = Data((0..<4096).map { UInt8($0 % 251) })
        let pngURL = try directory.file("avatar.png", contents: png)
        let notesURL = try directory.file("notes.bin", contents: Data("some notes".utf8))
        let form = MultipartFormData()
        form.append(Data("Ada".utf8), withName: "name")
        form.append(pngURL, withName: "avatar")
        form.append(Data("{\"a\":1}".utf8), withName: "meta", fileName: "meta.json", mimeType: "application/json")
        form.append(notesURL, withName: "notes", fileName: "renamed.txt", mimeType: "text/plain")

        let parts = try form.parsedParts()

        #expect(parts.map(\.name) == ["name", "avatar", "meta", "notes"])
        #expect(parts.map(\.filename) == [nil, "avatar.png", "meta.json", "renamed.txt"])
        #expect(parts.map(\.contentType) == [nil, "image/png", "application/json", "text/plain"])
        #expect(parts.map(\.body) == [Data("Ada".utf8), png, Data("{\"a\":1}".utf8), Data("some notes".utf8)])
    }

    @Test func theBodyHasTheRFC7578Layout() throws {
        let form = MultipartFormData(boundary: "b0undary")
        form.append(Data("v".utf8), withName: "k")
        form.append(Data("x".utf8), withName: "f", fileName: "f.txt", mimeType: "text/plain")
        let expected = "--b0undary\r\nContent-Disposition: form-data; name=\"k\"\r\n\r\nv\r\n"
            + "--b0undary\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\nContent-Type: text/plain\r\n\r\nx\r\n"
            + "--b0undary--\r\n"
        #expect(String(decoding: try form.encode(), as: UTF8.self) == expected)
    }

    @Test func anEmptyFormIsTheClosingDelimiterAlone() throws {
        let form = MultipartFormData(boundary: "empty")
        #expect(try form.encode() == Data("--empty--\r\n".utf8))
        #expect(form.contentLength == 11)
        #expect(try form.parsedParts().isEmpty)
    }

    @Test func quotesAndLineBreaksInNamesArePercentEncoded() throws {
        let form = MultipartFormData()
        form.append(Data("1".utf8), withName: "a\"b\r\nc", fileName: "evil\".txt\r\nX-Injected: yes")
        form.append(Data("2".utf8), withName: "café 名前", fileName: "résumé.pdf")

        let parts = try form.parsedParts()

        #expect(parts[0].name == "a%22b%0D%0Ac")
        #expect(parts[0].filename == "evil%22.txt%0D%0AX-Injected: yes")
        #expect(parts[0].header("X-Injected") == nil)
        #expect(parts[0].headers.count == 1)
        #expect(parts[1].name == "café 名前")
        #expect(parts[1].filename == "résumé.pdf")
    }

    /// A NUL cuts a name short where a server reads it as a C string
    /// (`shell.php\0.jpg`); escape codes and DEL reach a log as they are.
    @Test func everyControlCharacterInANameIsPercentEncoded() throws {
        let form = MultipartFormData()
        form.append(Data("1".utf8), withName: "na\u{0}me\u{1B}[31m\t", fileName: "shell.php\u{0}.jpg\u{7F}")
        let parts = try form.parsedParts()
        #expect(parts[0].name == "na%00me%1B[31m%09")
        #expect(parts[0].filename == "shell.php%00.jpg%7F")
    }

    @Test(arguments: [
        ("txt", "text/plain"), ("html", "text/html"), ("css", "text/css"), ("js", "text/javascript"),
        ("json", "application/json"), ("xml", "application/xml"), ("csv", "text/csv"), ("png", "image/png"),
        ("jpg", "image/jpeg"), ("JPEG", "image/jpeg"), ("gif", "image/gif"), ("webp", "image/webp"),
        ("svg", "image/svg+xml"), ("pdf", "application/pdf"), ("zip", "application/zip"), ("gz", "application/gzip"),
        ("mp3", "audio/mpeg"), ("mp4", "video/mp4"), ("mov", "video/quicktime"), ("wav", "audio/wav"),
        ("unknownext", "application/octet-stream"), ("", "application/octet-stream"),
    ])
    func aFilesMIMETypeComesFromItsExtension(pathExtension: String, mimeType: String) throws {
        let directory = try TemporaryDirectory()
        let name = pathExtension.isEmpty ? "README" : "file.\(pathExtension)"
        let fileURL = try directory.file(name, contents: Data("content".utf8))
        let form = MultipartFormData()
        form.append(fileURL, withName: "upload")

        let part = try #require(try form.parsedParts().first)

        #expect(part.contentType == mimeType)
        #expect(part.filename == name)
    }

    @Test func contentLengthIsTheEncodedSize() throws {
        let directory = try TemporaryDirectory()
        let fileURL = try directory.file("data.bin", contents: Data(repeating: 9, count: 3 * 1024 * 1024 + 17))
        let form = MultipartFormData()
        #expect(form.contentLength == UInt64(try form.encode().count))
        form.append(Data("Ada".utf8), withName: "name")
        form.append(fileURL, withName: "file")
        form.append(Data(), withName: "empty", fileName: "é\".txt", mimeType: "text/plain")

        #expect(form.contentLength == UInt64(try form.encode().count))
    }

    @Test func writingToAFileGivesTheSameBytesAsEncodingInMemory() throws {
        let directory = try TemporaryDirectory()
        // Larger than a chunk and not a multiple of it, so chunked copying and buffering both show.
        let big = Data((0..<(2 * 1024 * 1024 + 12_345)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let fileURL = try directory.file("big.bin", contents: big)
        let form = MultipartFormData()
        form.append(Data("Ada".utf8), withName: "name")
        form.append(fileURL, withName: "big")
        form.append(Data(repeating: 1, count: 1024 * 1024 + 1), withName: "blob", fileName: "blob", mimeType: "x/y")
        let output = directory.unusedURL("form.body")

        try form.writeEncodedData(to: output)

        let written = try Data(contentsOf: output)
        #expect(written == (try form.encode()))
        #expect(UInt64(written.count) == form.contentLength)
    }

    @Test func aFormCanBeEncodedMoreThanOnce() throws {
        let directory = try TemporaryDirectory()
        let form = MultipartFormData()
        form.append(try directory.file("a.txt", contents: Data("a".utf8)), withName: "a")
        #expect(try form.encode() == (try form.encode()))
    }

    @Test func partsAppendedFromManyThreadsAreAllEncoded() throws {
        let form = MultipartFormData()
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            form.append(Data("\(index)".utf8), withName: "field\(index)")
            _ = form.contentLength
        }

        let parts = try form.parsedParts()

        #expect(parts.count == 200)
        #expect(Set(parts.compactMap(\.name)) == Set((0..<200).map { "field\($0)" }))
        #expect(parts.allSatisfy { $0.name == "field" + String(decoding: $0.body, as: UTF8.self) })
        #expect(form.contentLength == UInt64(try form.encode().count))
    }

    @Test func anUploadEncodesASmallFormInMemoryAndABigOneToATemporaryFile() throws {
        let directory = try TemporaryDirectory()
        let form = MultipartFormData()
        form.append(Data(repeating: 5, count: 1000), withName: "blob", fileName: "blob.bin", mimeType: "x/y")
        let inMemory = try form.encode()

        #expect(try form.encodedForUpload() == .data(inMemory))
        #expect(try form.encodedForUpload(threshold: form.contentLength) == .data(inMemory))
        guard case .file(let fileURL) = try form.encodedForUpload(threshold: form.contentLength - 1, in: directory.url) else {
            Issue.record("a form above the threshold should be encoded to a file")
            return
        }
        #expect(fileURL.deletingLastPathComponent().standardizedFileURL == directory.url.standardizedFileURL)
        #expect(try Data(contentsOf: fileURL) == inMemory)
    }

    @Test func twoFormsGetDifferentRandomBoundaries() {
        let first = MultipartFormData()
        let second = MultipartFormData()
        #expect(first.boundary != second.boundary)
        #expect(first.boundary.hasPrefix("multipart.boundary."))
        #expect(first.boundary.count == "multipart.boundary.".count + 16)
        #expect(first.contentType == "multipart/form-data; boundary=\(first.boundary)")
    }

    @Test func aBoundaryWithSpecialCharactersIsQuotedInTheContentType() throws {
        let form = MultipartFormData(boundary: "a b:c")
        form.append(Data("v".utf8), withName: "k")
        #expect(form.contentType == "multipart/form-data; boundary=\"a b:c\"")
        #expect(try form.parsedParts().map(\.body) == [Data("v".utf8)])
    }

    @Test func aStreamPartIsReadOnceForItsLength() throws {
        let form = MultipartFormData()
        form.append(InputStream(data: Data("hello, stream!".utf8)), withLength: 14, name: "s",
                    fileName: "s.txt", mimeType: "text/plain")

        let parts = try form.parsedParts()

        #expect(parts.first?.body == Data("hello, stream!".utf8))
        #expect(parts.first?.filename == "s.txt")
        guard case .inputStreamAlreadyRead? = encodingFailure(of: form) else {
            Issue.record("a second encoding should report the stream as already read")
            return
        }
    }

    @Test func aStreamFormsContentLengthIsItsEncodedSize() throws {
        let form = MultipartFormData()
        form.append(InputStream(data: Data(repeating: 3, count: 5000)), withLength: 5000, name: "s",
                    fileName: "s.bin", mimeType: "application/octet-stream")
        let length = form.contentLength
        #expect(length == UInt64(try form.encode().count))
    }

    /// Alamofire's primitive `append(_:withLength:headers:)`: the fields
    /// are written as given, in order.
    @Test func aStreamPartCarriesTheHeaderFieldsGiven() throws {
        let form = MultipartFormData()
        let headers: HTTPHeaders = [
            "Content-Disposition": #"form-data; name="doc"; filename="d.json""#,
            "Content-Type": "application/json",
            "X-Part": "  7 ",
        ]
        form.append(InputStream(data: Data(#"{"a":1}"#.utf8)), withLength: 7, headers: headers)
        let part = try #require(try form.parsedParts().first)
        #expect(part.headers.map(\.name) == ["Content-Disposition", "Content-Type", "X-Part"])
        #expect(part.headers.last?.value == "7", "trimmed, as a request's field is")
        #expect(part.name == "doc" && part.filename == "d.json" && part.contentType == "application/json")
        #expect(part.body == Data(#"{"a":1}"#.utf8))
    }

    /// A line break in a part's field would end its header block early and
    /// let the value write header fields of its own.
    @Test(arguments: [("X-Part", "a\r\nContent-Type: text/html"), ("X Part", "a"), ("X-Part", "nul\u{0}")])
    func aPartFieldThatBreaksTheSyntaxFailsTheEncoding(name: String, value: String) throws {
        let form = MultipartFormData()
        form.append(InputStream(data: Data("x".utf8)), withLength: 1, headers: [HTTPHeader(name: name, value: value)])
        do {
            _ = try form.encode()
            Issue.record("encoded a part field \(name): \(value.debugDescription)")
        } catch HTTPError.urlRequestValidationFailed(reason: .invalidHeaderName(let named)) {
            #expect(named == name && name.contains(" "))
        } catch HTTPError.urlRequestValidationFailed(reason: .invalidHeaderValue(let named)) {
            #expect(named == name && !name.contains(" "))
        }
    }
}
