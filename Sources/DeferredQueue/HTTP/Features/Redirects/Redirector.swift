import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decides whether a request follows a redirect.
///
/// The ``Session`` builds the next request itself, the same way on every
/// transport: a `303` (and a `301`/`302` answering a `POST`) becomes a `GET`
/// without a body, while `307` and `308` keep the method and the body; a
/// redirect to another origin (scheme, host or port) drops `Authorization`,
/// `Cookie` and `Proxy-Authorization`; cookies set by the redirect response
/// are sent on the next hop. The redirector then follows that request, drops
/// it (the handlers receive the 3xx response), or replaces it.
///
/// ```swift
/// let session = Session(redirectHandler: .doNotFollow)
/// request(url).redirect(using: Redirector(behavior: .modify { next, response in
///     next.url?.host == "example.com" ? next : nil   // stay on one host
/// }))
/// ```
///
/// A chain of more than 16 redirects fails with `URLError.httpTooManyRedirects`.
public struct Redirector: Sendable {
    /// What to do with a redirect.
    public enum Behavior: Sendable {
        /// Follow it.
        case follow
        /// Do not follow it: the handlers receive the redirect response.
        case doNotFollow
        /// Return the request to send instead, or `nil` not to follow. The
        /// closure runs on the transport's callback queue: keep it short.
        case modify(@Sendable (_ next: URLRequest, _ response: HTTPURLResponse) -> URLRequest?)
    }

    /// Follows every redirect (the default).
    public static let follow = Redirector(behavior: .follow)
    /// Follows no redirect.
    public static let doNotFollow = Redirector(behavior: .doNotFollow)

    /// Sends what `closure` returns instead of each redirect's request, or
    /// nothing (`nil`: the handlers receive the redirect response), as
    /// Alamofire's `.modify(using:)` (whose closure also took the task).
    ///
    /// - Parameter closure: Receives the next request and the redirect response.
    /// - Returns: The redirector.
    public static func modify(
        using closure: @escaping @Sendable (_ next: URLRequest, _ response: HTTPURLResponse) -> URLRequest?
    ) -> Redirector {
        Redirector(behavior: .modify(closure))
    }

    /// What this redirector does.
    public let behavior: Behavior

    /// Creates a redirector.
    ///
    /// - Parameter behavior: What to do with each redirect.
    public init(behavior: Behavior) {
        self.behavior = behavior
    }

    /// The request to send next, or `nil` to deliver `response`.
    func decide(_ next: URLRequest, response: ResponseHead) -> URLRequest? {
        switch behavior {
        case .follow: return next
        case .doNotFollow: return nil
        case .modify(let modify): return modify(next, response.response)
        }
    }
}
