import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What is known when an attempt ends, for the decision that follows:
/// follow a redirect, answer a challenge, retry, or finish.
///
/// A class: it is handed from the lock to the decision and on to the outcome,
/// and each copy of a struct holding two `URLRequest`s (a resilient type,
/// copied through its value witnesses) cost more than this one allocation.
final class CompletedAttempt: Sendable {
    /// As sent.
    let request: URLRequest?
    /// Before adapters and session defaults.
    let base: URLRequest?
    let response: ResponseHead?
    let body: Data
    let redirector: Redirector?
    /// The credential, if it has not been sent yet.
    let credential: URLCredential?
    let progressHandlers: [ProgressHandler]
    /// The request's own body limit, if it set one.
    let maximumResponseBodySize: Int?
    /// The validators chained so far, to judge the attempt with.
    let validators: [PipelineValidator]

    init(
        request: URLRequest?, base: URLRequest?, response: ResponseHead?, body: Data,
        redirector: Redirector?, credential: URLCredential?, progressHandlers: [ProgressHandler],
        maximumResponseBodySize: Int?, validators: [PipelineValidator]
    ) {
        self.request = request
        self.base = base
        self.response = response
        self.body = body
        self.redirector = redirector
        self.credential = credential
        self.progressHandlers = progressHandlers
        self.maximumResponseBodySize = maximumResponseBodySize
        self.validators = validators
    }

    /// The body as handlers and validators see it: no bytes is no body,
    /// `nil`, as in Alamofire.
    var data: Data? { body.isEmpty ? nil : body }
}
