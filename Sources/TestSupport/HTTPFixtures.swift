import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import DeferredQueue

/// A loopback server with the routes the HTTP behaviour suites share.
///
/// Every test starts its own, on an ephemeral port of 127.0.0.1: tests never
/// touch the internet and never share state.
public final class Fixture: Sendable {
    public let server: LoopbackServer
    /// Attempts seen by `/flaky` (fails twice with 503, then succeeds).
    public let flakyAttempts = Counter()
    /// Attempts seen by `/post-503`.
    public let postAttempts = Counter()

    public static let latin1Text = "café crème à la française"
    public static let bigBodySize = 8 * 1024 * 1024
    /// An XML property list with the same title and count as `/json`.
    public static let plist = #"""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>title</key><string>hello</string><key>count</key><integer>3</integer></dict></plist>
        """#

    public init() throws {
        let flaky = flakyAttempts
        let posts = postAttempts
        server = try LoopbackServer { request in
            Fixture.reply(to: request, flaky: flaky, posts: posts)
        }
    }

    deinit { server.shutdown() }

    public func url(_ path: String) -> String { server.url(path).absoluteString }

    private static func reply(to request: ServerRequest, flaky: Counter, posts: Counter) -> Reply {
        switch request.path {
        case "/json": return .json(#"{"title":"hello","count":3,"tags":["a","b"]}"#)
        case "/null": return .json("null")
        case "/malformed": return .json(#"{"title": "hello", "count": 3,"#)
        case "/text": return .text("héllo wörld")
        case "/html": return .text("<p>hi</p>", contentType: "text/html; charset=utf-8")
        case "/latin1":
            return .response(status: 200, headers: [("Content-Type", "text/plain; charset=iso-8859-1")],
                             body: latin1Text.data(using: .isoLatin1) ?? Data())
        case "/latin1-undeclared":
            return .response(status: 200, headers: [("Content-Type", "text/plain")],
                             body: latin1Text.data(using: .isoLatin1) ?? Data())
        case "/no-content": return .response(status: 204)
        case "/reset-content": return .response(status: 205)
        case "/accepted": return .response(status: 202, headers: [("X-Queue-Position", "7")])
        case "/xssi": return .json(")]}',\n" + #"{"title":"hello","count":3}"#)
        case "/plist":
            return .response(status: 200, headers: [("Content-Type", "application/x-plist")], body: Data(plist.utf8))
        case "/empty": return .response(status: 200)
        case "/redirect": return .redirect(to: "/json")
        case "/redirect-loop": return .redirect(to: "/redirect-loop")
        case "/never": return .neverRespond
        case "/slow":
            // About ten minutes of body: cancelling "mid-body" cannot lose the race to completion.
            return .trickle(body: Data(repeating: 65, count: 12 * 1024 * 1024), chunkSize: 1024, interval: 0.05)
        case "/close-mid-body": return .closeMidBody(body: Data(repeating: 66, count: 10_000), sentBytes: 100)
        case "/big": return .response(status: 200, headers: [("Content-Type", "application/octet-stream")],
                                      body: Data(repeating: 7, count: bigBodySize))
        case "/flaky":
            return flaky.increment() <= 2 ? .text("try again", status: 503) : .json(#"{"ok":true}"#)
        case "/post-503":
            posts.increment()
            return .text("unavailable", status: 503)
        case "/echo": return .echo(request)
        case "/id": return .text(request.query["id"] ?? "")
        default:
            if request.path.hasPrefix("/status/"), let code = Int(request.path.dropFirst(8)) {
                return .text("status \(code)", status: code)
            }
            return .text("no route for \(request.path)", status: 404)
        }
    }
}

/// Registers one handler through `register` and waits (with a guard deadline)
/// for the response it receives.
public func response<Value: Sendable>(
    within seconds: Double = 120,
    _ register: (@escaping @Sendable (DataResponse<Value, HTTPError>) -> Void) -> Void
) async -> DataResponse<Value, HTTPError>? {
    let latch = Latch()
    let box = Recorder<DataResponse<Value, HTTPError>>()
    register { response in
        box.append(response)
        latch.arrive()
    }
    guard await latch.wait(seconds: seconds) else { return nil }
    return box.events.first
}

/// A serial queue for completion handlers in tests (the main queue is not
/// guaranteed to be serviced by the test runner).
public let handlerQueue = DispatchQueue(label: "tests.handlers")

extension HTTPError {
    /// A short name for the case, for comparisons in tests.
    public var kind: String {
        switch self {
        case .invalidURL: return "invalidURL"
        case .sessionTaskFailed(let error): return "sessionTaskFailed(\(error.code.rawValue))"
        case .cancelled: return "cancelled"
        case .responseValidationFailed(let reason):
            switch reason {
            case .unacceptableStatusCode(let code): return "status(\(code))"
            case .unacceptableContentType: return "contentType"
            case .missingContentType: return "missingContentType"
            case .customValidationFailed: return "customValidation"
            }
        case .responseSerializationFailed(let reason):
            switch reason {
            case .inputDataNilOrZeroLength: return "emptyBody"
            case .jsonSyntax: return "jsonSyntax"
            case .decodingFailed: return "decoding"
            case .stringEncodingFailed: return "stringEncoding"
            case .invalidEmptyResponse: return "invalidEmpty"
            case .customSerializationFailed: return "customSerialization"
            case .inputFileNil: return "inputFileNil"
            case .inputFileReadFailed: return "inputFileReadFailed"
            }
        case .abandoned: return "abandoned"
        case .requestAdaptationFailed: return "adaptation"
        case .requestRetryFailed: return "retryFailed"
        case .responseTooLarge: return "tooLarge"
        case .downloadedFileMoveFailed: return "moveFailed"
        case .uploadFileUnavailable: return "uploadFileUnavailable"
        case .createUploadableFailed: return "createUploadableFailed"
        case .serverTrustEvaluationFailed(let reason): return "serverTrust(\(reason.kind))"
        case .parameterEncodingFailed: return "parameterEncoding"
        case .multipartEncodingFailed: return "multipartEncoding"
        case .urlRequestValidationFailed: return "urlRequestValidation"
        case .createURLRequestFailed: return "createURLRequest"
        }
    }
}

extension HTTPError.ServerTrustFailureReason {
    /// The case's name, for comparisons in tests.
    public var kind: String {
        switch self {
        case .noRequiredEvaluator: "noRequiredEvaluator"
        case .noCertificatesFound: "noCertificatesFound"
        case .noPublicKeysFound: "noPublicKeysFound"
        case .defaultEvaluationFailed: "defaultEvaluationFailed"
        case .hostValidationFailed: "hostValidationFailed"
        case .revocationCheckFailed: "revocationCheckFailed"
        case .certificatePinningFailed: "certificatePinningFailed"
        case .publicKeyPinningFailed: "publicKeyPinningFailed"
        case .customEvaluationFailed: "customEvaluationFailed"
        case .transportCannotEvaluate: "transportCannotEvaluate"
        }
    }
}
