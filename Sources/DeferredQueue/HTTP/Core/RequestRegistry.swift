import Dispatch
import Foundation
import LockSupport
import Synchronization

/// The running requests of one ``Session``: what keeps a running request
/// alive, what ``Session/cancelAllRequests()`` cancels, and what enforces the
/// session's resource timeout.
///
/// The deadline of every running request is kept here, and one timer per
/// session — alive while requests run, gone a tick after the last one
/// finished — fails the overdue ones with `URLError.timedOut`. One timer for
/// the session rather than one per request: creating, arming and cancelling
/// a dispatch timer source for every request showed in profiles of short
/// requests, and a sweep costs nothing while no deadline is near.
final class RequestRegistry: Sendable {
    private struct Entry {
        let request: Request
        /// `DispatchTime` uptime in nanoseconds; `UInt64.max` for none.
        let deadline: UInt64
    }

    private struct State {
        var requests: [ObjectIdentifier: Entry] = [:]
        /// Present while requests run (and one tick after), if there is a timeout.
        var sweeper: (any DispatchSourceTimer)?
    }

    /// The session's resource timeout, in seconds.
    private let timeout: Double?
    /// Where overdue requests are failed (the transport's callback queue).
    private let queue: DispatchQueue
    private let state = Mutex(State())

    init(resourceTimeout: Double?, queue: DispatchQueue) {
        self.timeout = resourceTimeout
        self.queue = queue
    }

    deinit {
        state.withLock(owner: self) { $0.sweeper }?.cancel()
    }

    /// Records a request that started running; its deadline starts now, or
    /// (a request reopened to retry) when it first started. Returns when it started.
    @discardableResult
    func insert(_ request: Request, startedAt: UInt64? = nil) -> UInt64 {
        let start = startedAt ?? DispatchTime.now().uptimeNanoseconds
        let deadline = deadline(startedAt: start)
        state.withLock(owner: self) { state in
            state.requests[ObjectIdentifier(request)] = Entry(request: request, deadline: deadline)
            if let timeout, state.sweeper == nil { state.sweeper = makeSweeper(every: Self.interval(for: timeout)) }
        }
        return start
    }

    /// Whether a request that started at `start` is past its deadline.
    func isOverdue(startedAt start: UInt64) -> Bool {
        DispatchTime.now().uptimeNanoseconds >= deadline(startedAt: start)
    }

    /// Whether requests have a deadline (the session has a resource timeout).
    var hasDeadlines: Bool { timeout != nil }

    /// The deadline (uptime nanoseconds) of a request that started at `start`;
    /// `UInt64.max` for none.
    func deadline(startedAt start: UInt64) -> UInt64 {
        timeout.map { start &+ UInt64($0 * 1e9) } ?? .max
    }

    func remove(_ request: Request) {
        _ = state.withLock(owner: self) { $0.requests.removeValue(forKey: ObjectIdentifier(request)) }
    }

    /// The requests running now.
    var all: [Request] {
        state.withLock(owner: self) { $0.requests.values.map(\.request) }
    }

    /// How many requests are running (for leak checks).
    var count: Int {
        state.withLock(owner: self) { $0.requests.count }
    }

    /// How often the deadlines are checked: a tenth of the timeout, between
    /// 10 ms and a second — the precision of the deadline.
    static func interval(for timeout: Double) -> Double {
        min(1, max(0.01, timeout / 10))
    }

    private func makeSweeper(every interval: Double) -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int(interval * 1e9)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .nanoseconds(nanoseconds / 10))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
        return timer
    }

    /// `URLError.timedOut`, saying so when the request sat suspended: the
    /// server was not slow, nothing resumed it.
    private func deadlinePassed(for request: Request) -> URLError {
        guard request.isSuspended else { return URLError(.timedOut) }
        return URLError(.timedOut, userInfo: [
            NSLocalizedDescriptionKey: "The request was suspended when the session's resource timeout of \(timeout ?? 0) s ran out; "
                + "resume() it in time, or cancel() it to end it at once.",
            NSURLErrorFailingURLErrorKey: request.urlRequest?.url as Any,
        ])
    }

    /// Fails the overdue requests; stops the timer when nothing runs.
    private func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let (overdue, stopped) = state.withLock(owner: self) { state -> ([Request], (any DispatchSourceTimer)?) in
            guard !state.requests.isEmpty else {
                defer { state.sweeper = nil }
                return ([], state.sweeper)
            }
            return (state.requests.values.filter { $0.deadline <= now }.map(\.request), nil)
        }
        stopped?.cancel()
        for request in overdue {
            request.finish(failingWith: .sessionTaskFailed(deadlinePassed(for: request)))
        }
    }
}
