/// An asynchronous sequence of a stream's events (Alamofire's `StreamOf`):
/// iterate it with `for await`. Stopping early (leaving the loop, cancelling
/// the task) runs its termination action when the iterator goes away, which
/// for a ``DataStreamTask`` cancels the request.
public struct StreamOf<Element: Sendable>: AsyncSequence, Sendable {
    /// How many events wait for a slow consumer (`.unbounded` by default).
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy

    private let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation
    private let onTermination: @Sendable () -> Void

    /// A sequence whose events `build` yields; `onTermination` runs when an
    /// iterator goes away (after the last event, or early). The continuation
    /// kept by the producer keeps the stream alive, so the iterator's end —
    /// not the stream's — is what tells that the consumer stopped.
    init(
        bufferingPolicy: BufferingPolicy, onTermination: @escaping @Sendable () -> Void,
        build: (AsyncStream<Element>.Continuation) -> Void
    ) {
        (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        self.onTermination = onTermination
        build(continuation)
    }

    public func makeAsyncIterator() -> Iterator {
        let continuation = self.continuation, onTermination = self.onTermination
        return Iterator(base: stream.makeAsyncIterator(), ending: Ending {
            continuation.finish()
            onTermination()
        })
    }

    /// The iterator: the stream's, plus what runs when it goes away.
    public struct Iterator: AsyncIteratorProtocol {
        private var base: AsyncStream<Element>.AsyncIterator
        private let ending: Ending

        init(base: AsyncStream<Element>.AsyncIterator, ending: Ending) {
            self.base = base
            self.ending = ending
        }

        public mutating func next() async -> Element? {
            await base.next()
        }
    }

    /// Runs its action once, when the last copy of the iterator goes away.
    final class Ending: Sendable {
        private let action: @Sendable () -> Void

        init(_ action: @escaping @Sendable () -> Void) {
            self.action = action
        }

        deinit { action() }
    }
}
