import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// Enqueues a handler of the request's outcome (behind every validation
    /// chained so far) and starts the request. `make` builds what `handler`
    /// receives from the raw response, told whether the request settled: one
    /// cancelled (or, defensively, abandoned) before completion gets the
    /// request as last sent, the head if one arrived, and the failure.
    /// `handler` runs on `queue`, or right there on the request's queue when
    /// `queue` is `nil`.
    ///
    /// The block holds the request weakly: a running request's lifetime stays
    /// the session's business.
    func enqueueOutcome<Response: Sendable>(
        on queue: DispatchQueue?,
        _ make: @escaping @Sendable (_ raw: RawResponse, _ settled: Bool) -> Response,
        _ handler: @escaping @Sendable (Response) -> Void,
        beforeResuming register: ((inout RequestStateMachine) -> Void)? = nil
    ) {
        let urlRequest = self.urlRequest
        enqueueHandler({ [weak self] outcome in
            let response: Response
            switch outcome {
            case .success(let raw):
                response = make(raw, true)
            case .failure(let error):
                let unsettled = RawResponse(
                    request: self?.request ?? urlRequest, response: self?.response, data: nil,
                    error: HTTPError(unsettledOutcome: error), end: Date()
                )
                response = make(unsettled, false)
            }
            guard let queue else { return handler(response) }
            queue.async { handler(response) }
        }, beforeResuming: register)
    }
}
