import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Alamofire's request event streams: a closure hook as an `AsyncStream`,
// which ends once the request has its final outcome.
//
//     for await progress in request.downloadProgress() { print(progress.fractionCompleted) }

extension Request {
    /// The download progress, as an async sequence that ends when the
    /// request finishes (Alamofire's `downloadProgress(bufferingPolicy:)`;
    /// see ``downloadProgress(queue:closure:)``, which this registers and which
    /// starts the request).
    ///
    /// - Parameter bufferingPolicy: What the stream keeps while nobody
    ///   iterates (default: every update).
    /// - Returns: The updates, in order.
    public func downloadProgress(
        bufferingPolicy: AsyncStream<TransferProgress>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<TransferProgress> {
        eventStream(bufferingPolicy) { queue, yield in downloadProgress(queue: queue, closure: yield) }
    }

    /// The upload progress, as an async sequence that ends when the request
    /// finishes (Alamofire's `uploadProgress(bufferingPolicy:)`; see
    /// ``uploadProgress(queue:closure:)``, which this registers and which starts
    /// the request).
    ///
    /// - Parameter bufferingPolicy: What the stream keeps while nobody iterates.
    /// - Returns: The updates, in order.
    public func uploadProgress(
        bufferingPolicy: AsyncStream<TransferProgress>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<TransferProgress> {
        eventStream(bufferingPolicy) { queue, yield in uploadProgress(queue: queue, closure: yield) }
    }

    /// The request as built, as an async sequence that ends when the
    /// request finishes (Alamofire's `urlRequests(bufferingPolicy:)`; see
    /// ``onURLRequestCreation(on:perform:)``: one element, none for a
    /// request that could not be built).
    ///
    /// - Parameter bufferingPolicy: What the stream keeps while nobody iterates.
    /// - Returns: The `URLRequest`s.
    public func urlRequests(
        bufferingPolicy: AsyncStream<URLRequest>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<URLRequest> {
        eventStream(bufferingPolicy) { queue, yield in onURLRequestCreation(on: queue, perform: yield) }
    }

    /// The request's `curl` command line, as an async sequence that ends
    /// when the request finishes (Alamofire's `cURLDescriptions(bufferingPolicy:)`;
    /// see ``cURLDescription(on:calling:)``, including its warning about secrets).
    ///
    /// - Parameter bufferingPolicy: What the stream keeps while nobody iterates.
    /// - Returns: The command lines.
    public func cURLDescriptions(
        bufferingPolicy: AsyncStream<String>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<String> {
        eventStream(bufferingPolicy) { queue, yield in cURLDescription(on: queue, calling: yield) }
    }

    /// A stream fed by the hook `register` installs, finished when the
    /// request's outcome settles. The hook's events and the end go through
    /// one serial queue, and every event is dispatched before the outcome
    /// settles, so none comes after the end.
    func eventStream<Element: Sendable>(
        _ bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy,
        register: (DispatchQueue, @escaping @Sendable (Element) -> Void) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let queue = DispatchQueue(label: "DeferredQueue.eventStream", target: .global())
        register(queue) { continuation.yield($0) }
        outcome.whenSettled { _ in queue.async { continuation.finish() } }
        return stream
    }
}


extension ResponseHeadHandling {
    /// Each final response head, as an async sequence that ends when the
    /// request finishes (Alamofire's `httpResponses(bufferingPolicy:)`). It
    /// sets the request's ``onHTTPResponse(on:perform:)-(_,(HTTPURLResponse)->Void)``
    /// handler, replacing one set before (the last one set wins).
    ///
    /// - Parameter bufferingPolicy: What the stream keeps while nobody iterates.
    /// - Returns: The response heads.
    public func httpResponses(
        bufferingPolicy: AsyncStream<HTTPURLResponse>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<HTTPURLResponse> {
        eventStream(bufferingPolicy) { queue, yield in onHTTPResponse(on: queue, perform: yield) }
    }

    /// Awaits `handler` with each final response head, before the body,
    /// which waits for its answer: `.cancel` cancels the request, anything
    /// else lets it run (Alamofire's async `onHTTPResponse(perform:)`). The
    /// last handler set wins.
    ///
    /// - Parameter handler: Receives the response; returns the disposition.
    /// - Returns: The request, for chaining.
    @_disfavoredOverload
    @discardableResult
    public func onHTTPResponse(
        perform handler: @escaping @Sendable (_ response: HTTPURLResponse) async -> URLSession.ResponseDisposition
    ) -> Self {
        onHTTPResponse(on: .global()) { response, completionHandler in
            Task { completionHandler(await handler(response)) }
        }
    }

    /// Awaits `handler` with each final response head, before the body,
    /// which goes on once it returns (Alamofire's async `onHTTPResponse(perform:)`).
    ///
    /// - Parameter handler: Receives the response.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func onHTTPResponse(perform handler: @escaping @Sendable (_ response: HTTPURLResponse) async -> Void) -> Self {
        onHTTPResponse { (response: HTTPURLResponse) async -> URLSession.ResponseDisposition in
            await handler(response)
            return .allow
        }
    }
}
