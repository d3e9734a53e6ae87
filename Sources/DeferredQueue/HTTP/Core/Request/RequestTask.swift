import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt's transfer, as the task events of an ``EventMonitor`` name
/// it: Alamofire's `URLSessionTask` there, made transport-neutral (a
/// transport need not have tasks). Each attempt of a request — its first
/// send, each retry, redirect hop and authentication round trip — is one.
public struct RequestTask: Sendable {
    /// The attempt's number within its request, from 1.
    public let attempt: Int
    /// The request as the attempt sent it.
    public let request: URLRequest?

    /// `URLSessionTask`'s name for ``request``: the request the attempt was made with.
    public var originalRequest: URLRequest? { request }
    /// `URLSessionTask`'s name for ``request``: an attempt follows no redirect
    /// itself (each hop is an attempt of its own), so it is the original.
    public var currentRequest: URLRequest? { request }

    init(attempt: Int, request: URLRequest?) {
        self.attempt = attempt
        self.request = request
    }
}
