import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A stream's validators judge the head: a refused head stops the attempt,
// which then ends with the validation error, so the retriers and the retry
// policy decide what follows as for any failed attempt (as Alamofire does).
extension RequestStateMachine {
    /// Attempt `number`'s head was refused with `error`: its task, to cancel
    /// (`nil` until the transport attached it; `attach` cancels it then).
    mutating func reject(attempt number: Int, with error: HTTPError) -> (any HTTPTransportTask)? {
        updateAttempt(inFlight: number) { attempt -> (any HTTPTransportTask)? in
            attempt.rejection = error
            if case .sending(let task) = attempt.phase { return task }
            return nil
        } ?? nil
    }

    /// The request attempt `number` sent, while it runs.
    func sentRequest(ofAttempt number: Int) -> URLRequest? {
        guard case .running(let attempt) = state, attempt.number == number else { return nil }
        return attempt.request
    }

    /// The error attempt `number` ends with, when its head was refused.
    func rejection(ofAttempt number: Int) -> HTTPError? {
        guard case .running(let attempt) = state, attempt.number == number else { return nil }
        return attempt.rejection
    }
}
