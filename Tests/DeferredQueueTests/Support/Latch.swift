import Dispatch
import Synchronization
@testable import DeferredQueue

/// Counts down arrivals from any thread; `wait` suspends until the count
/// reaches zero or a generous deadline passes (a guard against hangs, not a
/// timing assertion).
final class Latch: Sendable {
    private struct State {
        var remaining: Int
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>

    init(count: Int = 1) {
        state = Mutex(State(remaining: count))
    }

    var remaining: Int { state.testLock(owner: self) { $0.remaining } }

    func arrive() {
        let ready = state.testLock(owner: self) { state -> [CheckedContinuation<Bool, Never>] in
            state.remaining -= 1
            guard state.remaining == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in ready { waiter.resume(returning: true) }
    }

    /// `true` when every arrival happened, `false` after `seconds` otherwise.
    func wait(seconds: Double = 120) async -> Bool {
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
final class Recorder<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    func append(_ element: Element) { storage.testLock(owner: self) { $0.append(element) } }
    var events: [Element] { storage.testLock(owner: self) { $0 } }
    var count: Int { storage.testLock(owner: self) { $0.count } }
}

/// A counter shared between threads.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult func increment() -> Int { value.add(1, ordering: .relaxed).newValue }
    /// Sets the count to `desired` if it is `expected`; whether it did.
    func compareExchange(expected: Int, desired: Int) -> Bool {
        value.compareExchange(expected: expected, desired: desired, ordering: .relaxed).exchanged
    }
    /// Adds `amount`; returns the new count.
    @discardableResult func add(_ amount: Int) -> Int { value.add(amount, ordering: .relaxed).newValue }
    var count: Int { value.load(ordering: .relaxed) }
}

/// An error type for tests.
struct TestError: Error, Equatable, Sendable {
    let code: Int
    init(_ code: Int = 0) { self.code = code }
}
