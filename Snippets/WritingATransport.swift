// A transport that answers from memory: the whole HTTPTransport contract in one small type.
// Run: swift run WritingATransport
import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

// snippet.transport
/// Answers every request with `200` and the same body, after `delay` seconds.
final class CannedTransport: HTTPTransport {
    let callbackQueue = DispatchQueue(label: "CannedTransport")
    /// This transport decodes no content coding.
    let acceptEncoding: String? = nil
    let body: Data
    let delay: Double

    init(body: Data, delay: Double = 0) {
        self.body = body
        self.delay = delay
    }

    func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask {
        let task = CannedTask(events: events, callbackQueue: callbackQueue)
        // Every event goes to the callback queue, one at a time.
        callbackQueue.asyncAfter(deadline: .now() + delay) { [body] in
            guard task.finish() else { return }  // cancelled first: that was the completion
            guard let url = attempt.request.url,
                  let head = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)
            else { return events.didComplete(body: nil, error: URLError(.badURL)) }
            // 1. The head, always, before anything else about the response.
            events.didReceive(response: head)
            if attempt.collectsBody {
                // 2a. A collected body goes through the attempt's collector: it enforces the session's limit.
                var collector = attempt.makeBodyCollector(expectedLength: body.count)
                do {
                    try collector.append(body)
                } catch {
                    return events.didComplete(body: nil, error: error)
                }
                // 3. Exactly one completion, last.
                events.didComplete(body: collector.take(), error: nil)
            } else {
                // 2b. A streamed body goes chunk by chunk; `nil`: nothing waits for the session.
                events.didReceive(data: body, handled: nil)
                events.didComplete(body: nil, error: nil)
            }
        }
        return task
    }

    func shutdown() {}
}

/// An attempt's handle: whichever comes first, the answer or `cancel()`, completes it.
final class CannedTask: HTTPTransportTask {
    private let finished = Atomic(false)
    private let events: any HTTPTransportEvents
    private let callbackQueue: DispatchQueue

    init(events: any HTTPTransportEvents, callbackQueue: DispatchQueue) {
        self.events = events
        self.callbackQueue = callbackQueue
    }

    /// `true` for the one caller that gets to complete the attempt.
    func finish() -> Bool {
        !finished.exchange(true, ordering: .acquiringAndReleasing)
    }

    func cancel() {
        guard finish() else { return }
        // Cancelled attempts still complete, with an error, on the callback queue.
        let events = self.events
        callbackQueue.async { events.didComplete(body: nil, error: URLError(.cancelled)) }
    }
}
// snippet.end

// snippet.hide
@MainActor func writingATransport() async throws {
// snippet.show
// snippet.use
let session = Session(transport: CannedTransport(body: Data(#"{"title":"canned"}"#.utf8)))
let text = try await session.request("https://example.invalid/entry").validate().serializingString().value
print(text)  // {"title":"canned"}
// snippet.end
// snippet.hide
}

do { try await writingATransport() } catch { print(error) }
