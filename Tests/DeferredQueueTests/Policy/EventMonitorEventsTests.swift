import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Alamofire's request events, its closure monitor's settable closures and
/// its notifications; on MockTransport.
@Suite("Event monitors: URLRequest events, settable closures, notifications")
struct EventMonitorEventsTests {
    /// Records every event as a line, on its own serial queue.
    final class Journal: EventMonitor {
        let queue = DispatchQueue(label: "journal")
        let lines = Recorder<String>()

        func requestDidResume(_ request: Request) { lines.append("resume") }
        func requestIsRetrying(_ request: Request) { lines.append("retrying") }
        func requestDidCancel(_ request: Request) { lines.append("cancel") }
        func requestDidFinish(_ request: Request) { lines.append("finish") }
        func request(_ request: Request, didReceive response: HTTPURLResponse) { lines.append("response \(response.statusCode)") }
        func request(_ request: Request, didCreateInitialURLRequest urlRequest: URLRequest) {
            lines.append("initial \(urlRequest.url?.path ?? "?")")
        }
        func request(_ request: Request, didAdaptInitialRequest initialRequest: URLRequest, to adaptedRequest: URLRequest) {
            lines.append("adapted \(adaptedRequest.value(forHTTPHeaderField: "X-Attempt") ?? "-")")
        }
        func request(_ request: Request, didFailToAdaptURLRequest initialRequest: URLRequest, withError error: HTTPError) {
            lines.append("adapt failed \(error.kind)")
        }
        func request(_ request: Request, didCreateURLRequest urlRequest: URLRequest) {
            lines.append("sent \(urlRequest.value(forHTTPHeaderField: "X-Attempt") ?? "-")")
        }
    }

    /// Numbers each attempt in `X-Attempt`.
    struct Numbering: RequestInterceptor {
        let count = Counter()
        func adapt(_ urlRequest: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
            var request = urlRequest
            request.setValue("\(count.increment())", forHTTPHeaderField: "X-Attempt")
            completion(.success(request))
        }
    }

    /// `finish`, once the journal's queue has run every event enqueued before it.
    static func settle(_ journal: Journal) async -> [String] {
        let drained = Latch()
        journal.queue.async { drained.arrive() }
        _ = await drained.wait()
        return journal.lines.events
    }

    @Test func everyAttemptIsAdaptedAndSentThenTheRequestFinishesOnce() async throws {
        let attempts = Counter()
        let fixture = PolicyFixture { _ in attempts.increment() == 1 ? .status(503) : .json(#"{"ok":true}"#) }
        let journal = Journal()
        let session = fixture.makeSession(
            interceptor: Numbering(), eventMonitors: [journal], retryPolicy: RetryPolicy(exponentialBackoffScale: 0.01)
        )
        let request = session.request(fixture.url("/twice"))
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(await eventually { journal.lines.events.last == "finish" })
        #expect(await Self.settle(journal) == [
            "resume", "initial /twice",
            "adapted 1", "sent 1", "response 503", "retrying",
            "adapted 2", "sent 2", "response 200", "finish",
        ])
    }

    @Test func aFailingAdapterIsReportedWithTheRequestItFailedOn() async throws {
        let fixture = PolicyFixture()
        let journal = Journal()
        let failing = Adapter { _, _, completion in completion(.failure(URLError(.userAuthenticationRequired))) }
        let request = fixture.makeSession(interceptor: failing, eventMonitors: [journal]).request(fixture.url("/json"))
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(await eventually { journal.lines.events.last == "finish" })
        #expect(await Self.settle(journal) == ["resume", "initial /json", "adapt failed adaptation", "finish"])
        #expect(fixture.requests.isEmpty)
    }

    @Test func closuresSetAfterCreationAreCalled() async throws {
        let fixture = PolicyFixture()
        let monitor = ClosureEventMonitor()
        let seen = Recorder<String>()
        monitor.requestDidCreateURLRequest = { _, urlRequest in seen.append("sent \(urlRequest.url?.path ?? "?")") }
        monitor.requestDidFinish = { _ in seen.append("finish") }
        #expect(monitor.requestDidCancel == nil)
        let request = fixture.makeSession(eventMonitors: [monitor]).request(fixture.url("/json"))
        _ = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(await eventually { seen.events == ["sent /json", "finish"] }, "\(seen.events)")
    }

    @Test func alamofireNotificationsNameTheRequest() async throws {
        let fixture = PolicyFixture { _ in .silence }
        let session = fixture.makeSession(eventMonitors: [AlamofireNotifications()])
        // No idle timeout a loaded machine could reach before the cancel.
        let request = session.request(fixture.url("/never"), requestModifier: { $0.timeoutInterval = .infinity })
        let names = Recorder<String>()
        let observed = [
            Request.didResumeNotification, Request.didCancelNotification, Request.didFinishNotification,
            Request.didResumeTaskNotification, Request.didCancelTaskNotification, Request.didCompleteTaskNotification,
            Request.didSuspendNotification, Request.didSuspendTaskNotification,
        ]
        let observers = observed.map { name in
            NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { notification in
                guard notification.request === request else { return }
                names.append(notification.name.rawValue.components(separatedBy: ".").last ?? "?")
            }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        request.resume()
        #expect(await eventually { fixture.requests.count == 1 })
        request.suspend()
        request.resume()
        request.cancel()
        #expect(await eventually { names.count == 10 }, "\(names.events)")
        #expect(names.events == [
            "didResume", "didResumeTask", "didSuspend", "didSuspendTask", "didResume", "didResumeTask",
            "didCancel", "didCancelTask", "didCompleteTask", "didFinish",
        ])
    }
}
