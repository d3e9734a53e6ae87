import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import DeferredQueue

// Helpers of the state machine's tests: values to drive it with, no transport.

extension RequestStateMachine {
    /// A handler chain no test resumes.
    static var tail: Deferred<RawResponse> { Deferred(error: DeferredError.cancelled) }

    static func make(_ kind: Kind = .data) -> RequestStateMachine {
        RequestStateMachine(kind: kind, tail: tail)
    }

    static func running(_ kind: Kind = .data) -> RequestStateMachine {
        var machine = make(kind)
        _ = machine.resume()
        return machine
    }

    /// A head no request goes on from (``receiveHead(_:attempt:continues:)``).
    static func final(_: HeadContext) -> Bool { false }

    /// Begins the next attempt, sending `path` built from `base` (the same by default).
    mutating func beginAttempt(path: String, base: String? = nil, sessionBodyLimit: Int = 1 << 20) -> BeginAttemptAction {
        var request = URLRequest.make(path)
        return beginAttempt(sending: &request, base: .make(base ?? path), sessionBodyLimit: sessionBodyLimit)
    }

    /// Begins an attempt and completes it; `nil` when it could not.
    mutating func completedAttempt() -> CompletedAttempt? {
        guard case .start(let number, _, _, _, _, _) = beginAttempt(path: "/a"),
              case .decide(let completed) = completeAttempt(number, body: nil)
        else { return nil }
        return completed
    }
}

extension URLRequest {
    static func make(_ path: String) -> URLRequest {
        URLRequest(url: URL(string: "http://127.0.0.1\(path)")!)
    }
}

extension HTTPURLResponse {
    static func make(_ status: Int, headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: URL(string: "http://127.0.0.1/")!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }
}

extension ResponseHead {
    /// A head as read off the wire (its response made only when asked).
    static func make(_ status: Int, headers: [String: String] = [:]) -> ResponseHead {
        ResponseHead(
            url: URL(string: "http://127.0.0.1/")!, statusCode: status, httpVersion: "HTTP/1.1",
            headers: HTTPHeaders(headers.sorted { $0.key < $1.key }.map { HTTPHeader(name: $0.key, value: $0.value) })
        )
    }
}

extension ProgressHandler {
    static var ignoring: ProgressHandler { ProgressHandler(queue: .global(), handler: { _ in }) }
}

final class StubTask: HTTPTransportTask {
    func cancel() {}
}
