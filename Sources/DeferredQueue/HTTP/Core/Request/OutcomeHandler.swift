import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one handler of a request's outcome receives, and how it is built
/// from the raw response: a value stored inline in the handler's one object
/// (``OutcomeHandler``, ``RetryableHandler``), so that adding a handler
/// allocates that object and nothing else of ours.
protocol OutcomeResponder: Sendable {
    associatedtype Response: Sendable

    /// The handler's response. `settled`: the request settled with `raw`;
    /// otherwise it ended before (cancelled or abandoned) and `raw` carries
    /// the request as last sent, the head if one arrived, and the failure.
    /// `request` is `nil` once the request is gone.
    func response(to raw: RawResponse, settled: Bool, of request: Request?) -> Response

    /// What building the response runs on the handler queue, which decides
    /// whether that queue may run on the handler's queue (``HandlerLane``).
    var serializing: SerializingWork { get }
}

extension OutcomeResponder {
    var serializing: SerializingWork { .callersCode }

    /// The handler's response to the request's outcome: the raw response it
    /// settled with, or — for a request that ended before (cancelled,
    /// abandoned) — the request as last sent (`built` if none was), the head
    /// if one arrived, and the failure.
    func response(to outcome: Result<RawResponse, any Error>, of request: Request?, built: URLRequest?) -> Response {
        switch outcome {
        case .success(let raw):
            response(to: raw, settled: true, of: request)
        case .failure(let error):
            response(to: Request.unsettled(error, of: request, built: built), settled: false, of: request)
        }
    }
}

/// One handler of a request's outcome, in its turn on the request's handler
/// queue: everything the turn needs, in one object, enqueued as the block's
/// only capture.
final class OutcomeHandler<Responder: OutcomeResponder>: Sendable {
    /// The deferred the handler waits on (the request's tail when it was added).
    private let outcome: Deferred<RawResponse>
    /// The request, held strongly when it runs, ran, or starts with this
    /// handler (the session's registry keeps a running request alive until
    /// it settles anyway) and weakly otherwise: something that waits on a
    /// request never started must not keep it. Weakly only when needed: a
    /// weak reference gives the request a side table, through which every
    /// later retain and release of it goes. A weakly held request that
    /// settled is kept alive until its handlers ran when they need it
    /// (`Request.keepAliveForHandlers()`).
    private let started: Request?
    private weak let waiting: Request?
    /// The request as built, for a request that ended before it was sent.
    private let built: URLRequest?
    /// How many validators' verdicts the handler applies itself
    /// (`RequestStateMachine.verdictsForHandlers` when it was added).
    private let verdicts: Int
    /// Where `handler` runs; `nil`: right there on the handler queue.
    private let queue: DispatchQueue?
    private let responder: Responder
    private let handler: @Sendable (Responder.Response) -> Void

    private init(
        request: Request, started: Bool, outcome: Deferred<RawResponse>, verdicts: Int, built: URLRequest?, queue: DispatchQueue?,
        responder: Responder, handler: @escaping @Sendable (Responder.Response) -> Void
    ) {
        self.outcome = outcome
        self.verdicts = verdicts
        if started {
            self.started = request
            self.waiting = nil
        } else {
            self.started = nil
            self.waiting = request
        }
        self.built = built
        self.queue = queue
        self.responder = responder
        self.handler = handler
    }

    /// Enqueues a handler behind `outcome`'s earlier handlers. `started`:
    /// whether the request runs, ran, or starts with this handler;
    /// `verdicts`: how many validators' verdicts it applies itself.
    static func enqueue(
        for request: Request, started: Bool, after outcome: Deferred<RawResponse>, verdicts: Int, built: URLRequest?,
        queue: DispatchQueue?, responder: Responder, handler: @escaping @Sendable (Responder.Response) -> Void
    ) {
        let turn = OutcomeHandler(
            request: request, started: started, outcome: outcome, verdicts: verdicts, built: built, queue: queue,
            responder: responder, handler: handler
        )
        outcome.queue.async { turn.run() }
    }

    private func run() {
        let outcome = outcome.currentOutcome.applyingVerdicts(of: verdicts)
        let response = responder.response(to: outcome, of: started ?? waiting, built: built)
        guard let queue else { return handler(response) }
        let handler = self.handler
        queue.async { handler(response) }
    }
}
