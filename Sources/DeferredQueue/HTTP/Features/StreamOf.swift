/// An asynchronous sequence of a stream's events (Alamofire's `StreamOf`):
/// iterate it with `for await`. Stopping early (leaving the loop, cancelling
/// the task, dropping the sequence) runs its termination action, which for
/// a ``DataStreamTask`` cancels the request.
public struct StreamOf<Element: Sendable>: AsyncSequence, Sendable {
    /// How many events wait for a slow consumer (`.unbounded` by default).
    public typealias BufferingPolicy = AsyncStream<Element>.Continuation.BufferingPolicy
    public typealias AsyncIterator = AsyncStream<Element>.AsyncIterator

    private let stream: AsyncStream<Element>

    /// A sequence whose events `build` yields; `onEarlyTermination` runs when
    /// the consumer stops before the sequence finished.
    init(
        bufferingPolicy: BufferingPolicy, onEarlyTermination: @escaping @Sendable () -> Void,
        build: (AsyncStream<Element>.Continuation) -> Void
    ) {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        continuation.onTermination = { termination in
            if case .cancelled = termination { onEarlyTermination() }
        }
        self.stream = stream
        build(continuation)
    }

    public func makeAsyncIterator() -> AsyncIterator {
        stream.makeAsyncIterator()
    }
}
