import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Alamofire's `AFError` accessors, under the same names on ``HTTPError``:
/// each `is…Error` is true for its case alone, and each detail is read
/// from the case that carries it.
@Suite("HTTPError: Alamofire's is…Error accessors and details")
struct HTTPErrorAccessorTests {
    static let file = URL(fileURLWithPath: "/tmp/part.bin")

    /// One error of each case an accessor names, with the accessor's name.
    static let kinds: [(String, HTTPError)] = [
        ("explicitlyCancelled", .cancelled),
        ("invalidURL", .invalidURL("http://bad host")),
        ("sessionTask", .sessionTaskFailed(URLError(.timedOut))),
        ("responseValidation", .responseValidationFailed(reason: .unacceptableStatusCode(code: 500))),
        ("responseSerialization", .responseSerializationFailed(reason: .inputDataNilOrZeroLength(serializer: "Data"))),
        ("requestAdaptation", .requestAdaptationFailed(error: TestError(1))),
        ("requestRetry", .requestRetryFailed(retryError: TestError(2), originalError: .cancelled)),
        ("parameterEncoding", .parameterEncodingFailed(reason: .missingURL)),
        ("multipartEncoding", .multipartEncodingFailed(reason: .bodyPartFileIsDirectory(at: file))),
        ("createURLRequest", .createURLRequestFailed(error: TestError(3))),
        ("createUploadable", .uploadFileUnavailable(file)),
        ("downloadedFileMove", .downloadedFileMoveFailed(error: TestError(4), source: file, destination: nil)),
        ("urlRequestValidation", .urlRequestValidationFailed(reason: .invalidMethod("G T"))),
    ]

    static func answers(_ error: HTTPError) -> [String: Bool] {
        [
            "explicitlyCancelled": error.isExplicitlyCancelledError,
            "invalidURL": error.isInvalidURLError,
            "sessionTask": error.isSessionTaskError,
            "responseValidation": error.isResponseValidationError,
            "responseSerialization": error.isResponseSerializationError,
            "requestAdaptation": error.isRequestAdaptationError,
            "requestRetry": error.isRequestRetryError,
            "parameterEncoding": error.isParameterEncodingError,
            "multipartEncoding": error.isMultipartEncodingError,
            "createURLRequest": error.isCreateURLRequestError,
            "createUploadable": error.isCreateUploadableError,
            "downloadedFileMove": error.isDownloadedFileMoveError,
            "urlRequestValidation": error.isURLRequestValidationError,
        ]
    }

    @Test(arguments: kinds.map(\.0))
    func eachAccessorIsTrueForItsCaseAlone(_ name: String) throws {
        for (kind, error) in Self.kinds {
            #expect(Self.answers(error)[name] == (kind == name), "\(name) asked of \(kind)")
        }
        let error = try #require(Self.kinds.first { $0.0 == name }?.1)
        if name == "parameterEncoding" { #expect(error.isParameterEncoderError) }
    }

    @Test func theDetailsComeFromTheCaseThatCarriesThem() {
        #expect(HTTPError.invalidURL("http://bad host").urlConvertible as? String == "http://bad host")
        #expect(HTTPError.cancelled.urlConvertible == nil)
        #expect(HTTPError.multipartEncodingFailed(reason: .bodyPartFileIsDirectory(at: Self.file)).url == Self.file)
        let contentType = HTTPError.responseValidationFailed(
            reason: .unacceptableContentType(acceptable: ["application/json"], responseContentType: "text/html")
        )
        #expect(contentType.acceptableContentTypes == ["application/json"])
        #expect(contentType.responseContentType == "text/html")
        #expect(HTTPError.responseValidationFailed(reason: .missingContentType(acceptable: ["a/b"])).acceptableContentTypes == ["a/b"])
        #expect(HTTPError.responseSerializationFailed(reason: .stringEncodingFailed(encoding: .utf16)).failedStringEncoding == .utf16)
        let move = HTTPError.downloadedFileMoveFailed(error: TestError(4), source: Self.file, destination: URL(fileURLWithPath: "/tmp/to"))
        #expect(move.sourceURL == Self.file)
        #expect(move.destinationURL?.path == "/tmp/to")
        #expect(HTTPError.cancelled.sourceURL == nil && HTTPError.cancelled.responseContentType == nil)
    }

    /// A description says what the case knows: a status code's does not name
    /// 200..<300 as the only accepted range, and a URL that is no file is
    /// called that, not a missing file.
    @Test func descriptionsSayWhatTheCaseKnows() {
        let status = "\(HTTPError.responseValidationFailed(reason: .unacceptableStatusCode(code: 200)))"
        #expect(status.contains("HTTP 200") && status.contains("validate(statusCode:)"), "\(status)")
        #expect(!status.contains("validate() accepts 200..<300)"), "\(status)")
        let notAFile = "\(HTTPError.uploadFileUnavailable(URL(string: "http://example.com/y")!))"
        #expect(notAFile.contains("is not a file URL") && !notAFile.contains("does not exist"), "\(notAFile)")
        let missing = "\(HTTPError.uploadFileUnavailable(URL(fileURLWithPath: "/nonexistent/y")))"
        #expect(missing.contains("does not exist"), "\(missing)")
    }
}
