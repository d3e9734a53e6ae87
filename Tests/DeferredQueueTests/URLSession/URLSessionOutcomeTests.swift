import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

/// How a task's `URLError.unknown` (libcurl's words in its description) is
/// reported to the session: here, the connections that ended under it.
@Suite("URLSession: libcurl's words for a lost connection")
struct URLSessionOutcomeTests {
    static func reported(_ message: String) -> URLError.Code? {
        let error = URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: message])
        let outcome = URLSessionAttemptTask.outcome(
            response: nil, error: error, url: URL(string: "http://127.0.0.1/"), headSize: nil, declined: false, downloadError: nil
        )
        return (outcome.error as? URLError)?.code
    }

    /// A body sent to a kept-alive connection nginx had closed got "Send
    /// failure: Broken pipe", which nothing retried (`RetryPolicy` retries
    /// `networkConnectionLost` for idempotent methods, not `unknown`).
    @Test(arguments: [
        "Send failure: Broken pipe", "Send failure: Connection reset by peer", "Recv failure: Connection reset by peer",
        "transfer closed with 5 bytes remaining to read",
    ])
    func aConnectionThatEndedUnderTheRequestIsLost(_ message: String) {
        #expect(Self.reported(message) == .networkConnectionLost)
    }

    @Test func otherWordsStayUnknown() {
        #expect(Self.reported("Some other failure") == .unknown)
    }
}
