import DeferredQueue
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("MultipartFormData failures")
struct MultipartEncodingFailureTests {
    @Test func aMissingFileIsReportedAsNotReachable() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.unusedURL("missing.png")
        let form = MultipartFormData()
        form.append(missing, withName: "avatar")

        guard case .bodyPartFileNotReachable(let url)? = encodingFailure(of: form) else {
            Issue.record("expected bodyPartFileNotReachable")
            return
        }
        #expect(url == missing)
    }

    @Test func aDirectoryIsReportedAsADirectory() throws {
        let directory = try TemporaryDirectory()
        let form = MultipartFormData()
        form.append(directory.url, withName: "folder", fileName: "folder", mimeType: "application/octet-stream")

        guard case .bodyPartFileIsDirectory(let url)? = encodingFailure(of: form) else {
            Issue.record("expected bodyPartFileIsDirectory")
            return
        }
        #expect(url == directory.url)
    }

    @Test func aURLThatIsNotAFileURLIsReportedAsInvalid() throws {
        let remote = try #require(URL(string: "https://example.com/image.png"))
        let form = MultipartFormData()
        form.append(remote, withName: "image")

        guard case .bodyPartURLInvalid(let url)? = encodingFailure(of: form) else {
            Issue.record("expected bodyPartURLInvalid")
            return
        }
        #expect(url == remote)
    }

    @Test func aFileURLWithoutAFileNameIsReported() {
        let form = MultipartFormData()
        form.append(URL(fileURLWithPath: "/"), withName: "root")

        guard case .bodyPartFilenameInvalid? = encodingFailure(of: form) else {
            Issue.record("expected bodyPartFilenameInvalid")
            return
        }
    }

    @Test func aDeviceIsNotARegularFileAndIsRefusedInsteadOfReadForever() throws {
        let form = MultipartFormData()
        form.append(URL(fileURLWithPath: "/dev/zero"), withName: "zeros")

        guard case .bodyPartFileSizeNotAvailable? = encodingFailure(of: form) else {
            Issue.record("expected bodyPartFileSizeNotAvailable")
            return
        }
    }

    @Test func aSymbolicLinkToAFileSendsTheFile() throws {
        let directory = try TemporaryDirectory()
        let target = try directory.file("target.txt", contents: Data("linked".utf8))
        let link = directory.unusedURL("link.txt")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let form = MultipartFormData()
        form.append(link, withName: "file")

        #expect(try form.parsedParts().first?.body == Data("linked".utf8))
    }

    @Test func anUnreadableFileIsReported() throws {
        // root reads any file, so only an unprivileged run can see this.
        guard getuid() != 0 else { return }
        let directory = try TemporaryDirectory()
        let fileURL = try directory.file("secret.txt", contents: Data("secret".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: fileURL.path)
        let form = MultipartFormData()
        form.append(fileURL, withName: "secret")

        guard case .bodyPartFileNotReadable? = encodingFailure(of: form) else {
            Issue.record("expected bodyPartFileNotReadable")
            return
        }
    }

    @Test func theFirstProblemIsKeptAndTheLaterPartsAreLeftOut() throws {
        let directory = try TemporaryDirectory()
        let form = MultipartFormData()
        form.append(Data("ok".utf8), withName: "ok")
        form.append(directory.unusedURL("first-missing"), withName: "a")
        form.append(directory.url, withName: "b", fileName: "b", mimeType: "x/y")

        guard case .bodyPartFileNotReachable? = encodingFailure(of: form) else {
            Issue.record("expected the first problem, bodyPartFileNotReachable")
            return
        }
        #expect(throws: HTTPError.self) { try form.writeEncodedData(to: directory.unusedURL()) }
    }

    @Test func aFileThatChangesSizeAfterAppendIsReported() throws {
        let directory = try TemporaryDirectory()
        let fileURL = try directory.file("growing.log", contents: Data("short".utf8))
        let form = MultipartFormData()
        form.append(fileURL, withName: "log")
        try Data("much longer now".utf8).write(to: fileURL)

        guard case .bodyPartFileSizeChanged(_, let expected, let actual)? = encodingFailure(of: form) else {
            Issue.record("expected bodyPartFileSizeChanged")
            return
        }
        #expect(expected == 5)
        #expect(actual == 15)
    }

    /// Cut at its declared length without a word, the rest of the stream was lost.
    @Test func aStreamLongerThanItsLengthIsReported() throws {
        let form = MultipartFormData()
        form.append(InputStream(data: Data("0123456789".utf8)), withLength: 5, name: "s", fileName: "s", mimeType: "x/y")
        guard case .inputStreamLengthMismatch(let expected, let actual)? = encodingFailure(of: form) else {
            Issue.record("expected inputStreamLengthMismatch")
            return
        }
        #expect(expected == 5)
        #expect(actual > 5)
    }

    @Test func aStreamShorterThanItsLengthIsReported() throws {
        let form = MultipartFormData()
        form.append(InputStream(data: Data("abc".utf8)), withLength: 10, name: "s", fileName: "s", mimeType: "x/y")

        guard case .inputStreamLengthMismatch(let expected, let actual)? = encodingFailure(of: form) else {
            Issue.record("expected inputStreamLengthMismatch")
            return
        }
        #expect(expected == 10)
        #expect(actual == 3)
    }

    @Test func aMIMETypeWithALineBreakIsRefused() {
        let form = MultipartFormData()
        form.append(Data("x".utf8), withName: "x", fileName: "x", mimeType: "text/plain\r\nX-Injected: yes")

        guard case .bodyPartMIMETypeInvalid? = encodingFailure(of: form) else {
            Issue.record("expected bodyPartMIMETypeInvalid")
            return
        }
    }

    @Test(arguments: ["", String(repeating: "a", count: 71), "ends with space ", "semi;colon", "ümlaut"])
    func anInvalidBoundaryIsRefused(boundary: String) {
        let form = MultipartFormData(boundary: boundary)

        guard case .boundaryInvalid(let refused)? = encodingFailure(of: form) else {
            Issue.record("expected boundaryInvalid")
            return
        }
        #expect(refused == boundary)
    }

    @Test func writingNeverOverwritesAnExistingFile() throws {
        let directory = try TemporaryDirectory()
        let existing = try directory.file("existing", contents: Data("keep me".utf8))
        let form = MultipartFormData()
        form.append(Data("x".utf8), withName: "x")

        #expect {
            try form.writeEncodedData(to: existing)
        } throws: { error in
            guard case .outputStreamFileAlreadyExists(let url)? = multipartReason(error) else { return false }
            return url == existing
        }
        #expect(try Data(contentsOf: existing) == Data("keep me".utf8))
    }

    @Test func writingToAURLThatIsNotAFileURLIsRefused() throws {
        let form = MultipartFormData()
        let remote = try #require(URL(string: "https://example.com/upload"))
        #expect {
            try form.writeEncodedData(to: remote)
        } throws: { error in
            guard case .outputStreamURLInvalid? = multipartReason(error) else { return false }
            return true
        }
    }

    @Test func writingIntoAMissingDirectoryIsACreationFailure() throws {
        let directory = try TemporaryDirectory()
        let form = MultipartFormData()
        #expect {
            try form.writeEncodedData(to: directory.url.appendingPathComponent("no/such/dir/body"))
        } throws: { error in
            guard case .outputStreamCreationFailed? = multipartReason(error) else { return false }
            return (error as? HTTPError)?.underlyingError != nil
        }
    }

    @Test func aFailedWriteRemovesThePartialFile() throws {
        let directory = try TemporaryDirectory()
        let fileURL = try directory.file("shrinking.bin", contents: Data(repeating: 1, count: 3 * 1024 * 1024))
        let form = MultipartFormData()
        form.append(fileURL, withName: "file")
        try Data("tiny".utf8).write(to: fileURL)
        let output = directory.unusedURL("body")

        #expect(throws: HTTPError.self) { try form.writeEncodedData(to: output) }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func everyReasonSaysWhatToDo() throws {
        let url = URL(fileURLWithPath: "/tmp/x.png")
        let reasons: [HTTPError.MultipartEncodingFailureReason] = [
            .boundaryInvalid("a;b"), .bodyPartMIMETypeInvalid("a\nb"), .bodyPartURLInvalid(url: url),
            .bodyPartFilenameInvalid(in: url), .bodyPartFileNotReachable(at: url), .bodyPartFileIsDirectory(at: url),
            .bodyPartFileNotReadable(at: url, error: nil), .bodyPartFileSizeNotAvailable(at: url, error: nil),
            .bodyPartFileSizeChanged(at: url, expected: 1, actual: 2), .inputStreamReadFailed(error: CocoaError(.fileReadUnknown)),
            .inputStreamLengthMismatch(expected: 2, actual: 1), .inputStreamAlreadyRead, .outputStreamURLInvalid(url: url),
            .outputStreamFileAlreadyExists(at: url), .outputStreamCreationFailed(for: url, error: CocoaError(.fileWriteUnknown)),
            .outputStreamWriteFailed(error: CocoaError(.fileWriteOutOfSpace)),
        ]
        for reason in reasons {
            let error = HTTPError.multipartEncodingFailed(reason: reason)
            #expect(error.description == reason.description)
            #expect(reason.description.count > 60)
        }
        #expect(HTTPError.multipartEncodingFailed(reason: reasons[9]).underlyingError is CocoaError)
        #expect(HTTPError.multipartEncodingFailed(reason: .inputStreamAlreadyRead).kind == "multipartEncoding")
    }
}
