import LockSupport
import Synchronization

/// One bounded fan-out (see ``Deferred/all(_:maxConcurrent:_:)``): starts
/// the work for each input, a few at a time, and collects the values.
///
/// It is the upstream of its result, so cancelling the result stops it
/// (``consumerGaveUp()``); the handlers of the deferreds it started keep it
/// alive while they are pending.
final class Fanout<Element: Sendable, Value: Sendable>: ConsumerLink {
    private enum Slot {
        case waiting
        case running(Deferred<Value>)
        case done(Value)
    }

    private struct State {
        var slots: [Slot]
        /// The next input to start.
        var next = 0
        /// Inputs not fulfilled yet.
        var remaining: Int
        /// Set once the result is decided or cancelled: nothing more starts.
        var stopped = false

        /// Stops, and hands back the deferreds still running (to release).
        mutating func stop() -> [Deferred<Value>] {
            stopped = true
            defer { slots = [] }
            return slots.compactMap { slot in
                if case .running(let deferred) = slot { return deferred }
                return nil
            }
        }
    }

    let result: Deferred<[Value]>
    private let elements: [Element]
    private let make: @Sendable (Element) -> Deferred<Value>
    /// Every mutable field, under one lock.
    private let state: Mutex<State>

    private init(_ elements: [Element], make: @escaping @Sendable (Element) -> Deferred<Value>) {
        self.elements = elements
        self.make = make
        self.state = Mutex(State(slots: Array(repeating: .waiting, count: elements.count), remaining: elements.count))
        self.result = Deferred<[Value]>(pendingWithUpstream: nil)
    }

    /// Starts the first `width` inputs and returns the result.
    static func start(
        _ elements: [Element],
        width: Int,
        make: @escaping @Sendable (Element) -> Deferred<Value>
    ) -> Deferred<[Value]> {
        let fanout = Fanout(elements, make: make)
        // Before anyone can see the result, so its cancellation reaches us.
        fanout.result.attach(upstream: fanout)
        for _ in 0..<min(width, elements.count) { fanout.startNext() }
        return fanout.result
    }

    /// The result was cancelled (or timed out): start nothing more and
    /// release what is running.
    func consumerGaveUp(into work: inout [any ConsumerLink]) {
        let running = state.withLock(owner: self) { state -> [Deferred<Value>] in
            guard !state.stopped else { return [] }
            return state.stop()
        }
        // Reversed: the loop takes the last first, so they give up in order.
        work.append(contentsOf: running.reversed().lazy.map { $0 as any ConsumerLink })
    }

    /// Starts the next input, if any and not stopped. `make` runs outside the
    /// lock: it may do anything, cancelling the result included.
    private func startNext() {
        let index = state.withLock(owner: self) { state -> Int? in
            guard !state.stopped, state.next < state.slots.count else { return nil }
            defer { state.next += 1 }
            return state.next
        }
        guard let index else { return }
        let deferred = make(elements[index])
        deferred.addConsumer()
        let started = state.withLock(owner: self) { state -> Bool in
            guard !state.stopped else { return false }
            state.slots[index] = .running(deferred)
            return true
        }
        guard started else {
            deferred.consumerGaveUp()
            return
        }
        // Always asynchronous, so an already fulfilled deferred does not
        // recurse into the next `make`.
        deferred.whenSettled { self.settled(index, $0) }
    }

    private func settled(_ index: Int, _ outcome: Result<Value, any Error>) {
        switch outcome {
        case .success(let value):
            let values = state.withLock(owner: self) { state -> [Value]? in
                guard !state.stopped else { return nil }
                state.slots[index] = .done(value)
                state.remaining -= 1
                guard state.remaining == 0 else { return nil }
                let values = state.slots.compactMap { slot -> Value? in
                    if case .done(let value) = slot { return value }
                    return nil
                }
                _ = state.stop()
                return values
            }
            if let values {
                result.settle(.success(values))
            } else {
                startNext()
            }
        case .failure(let error):
            let running = state.withLock(owner: self) { state -> [Deferred<Value>]? in
                guard !state.stopped else { return nil }
                return state.stop()
            }
            guard let running else { return }
            result.settle(.failure(error))
            // The rejected one has settled; releasing it does nothing.
            for deferred in running { deferred.consumerGaveUp() }
        }
    }
}
