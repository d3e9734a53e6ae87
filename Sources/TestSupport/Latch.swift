import Dispatch
import Synchronization

/// Counts down arrivals from any thread; `wait` suspends until the count
/// reaches zero or a generous deadline passes (a guard against hangs, not a
/// timing assertion).
public final class Latch: Sendable {
    private struct State {
        var remaining: Int
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>

    public init(count: Int = 1) {
        state = Mutex(State(remaining: count))
    }

    public var remaining: Int { state.testLock(owner: self) { $0.remaining } }

    public func arrive() {
        let ready = state.testLock(owner: self) { state -> [CheckedContinuation<Bool, Never>] in
            state.remaining -= 1
            guard state.remaining == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in ready { waiter.resume(returning: true) }
    }

    /// `true` when every arrival happened, `false` after `seconds` otherwise.
    public func wait(seconds: Double = 120) async -> Bool {
        await withCheckedContinuation { continuation in
            let id = state.testLock(owner: self) { state -> Int? in
                if state.remaining <= 0 { return nil }
                state.nextID += 1
                state.waiters[state.nextID] = continuation
                return state.nextID
            }
            guard let id else { return continuation.resume(returning: true) }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                self.state.testLock(owner: self) { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
            }
        }
    }
}

/// A thread-safe log of events, in the order they were appended.
public final class Recorder<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    public init() {}

    public func append(_ element: Element) { storage.testLock(owner: self) { $0.append(element) } }
    public var events: [Element] { storage.testLock(owner: self) { $0 } }
    public var count: Int { storage.testLock(owner: self) { $0.count } }
}

/// A counter shared between threads.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    public init() {}

    @discardableResult public func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    /// Sets the count to `desired` if it is `expected`; whether it did.
    public func compareExchange(expected: Int, desired: Int) -> Bool {
        value.compareExchange(expected: expected, desired: desired, ordering: .relaxed).exchanged
    }
    /// Adds `amount`; returns the new count.
    @discardableResult public func add(_ amount: Int) -> Int { value.add(amount, ordering: .relaxed).newValue }
    public var count: Int { value.load(ordering: .relaxed) }
}

/// An error type for tests.
public struct TestError: Error, Equatable, Sendable {
    public let code: Int
    public init(_ code: Int = 0) { self.code = code }
}

/// Returns once everything `queue` (a serial queue) had been given has run,
/// without blocking a thread of Swift's cooperative pool (as `queue.sync {}`
/// in an async test would, while the queue is busy).
public func drained(_ queue: DispatchQueue) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        queue.async { done.resume() }
    }
}
