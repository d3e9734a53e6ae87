import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// A request is equal only to itself, as in Alamofire, so that requests can be
// kept in a `Set` (see `Session.withAllRequests(perform:)`).
extension Request: Hashable {
    public static func == (lhs: Request, rhs: Request) -> Bool {
        lhs === rhs
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

extension Request {
    /// Hands the request as it was built to `perform`, on `queue`, as
    /// Alamofire's `onURLRequestCreation(on:perform:)` does. A request is
    /// built when it is created, so `perform` runs at once (for a request
    /// that could not be built, not at all); what each attempt sends, after
    /// adapters and redirects, is ``request``.
    ///
    /// - Parameters:
    ///   - queue: Where `perform` runs (default `.main`).
    ///   - perform: Receives the `URLRequest`.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func onURLRequestCreation(on queue: DispatchQueue = .main, perform: @escaping @Sendable (URLRequest) -> Void) -> Self {
        if let urlRequest { queue.async { perform(urlRequest) } }
        return self
    }
}

extension Session {
    /// Hands every running request of this session to `perform`, on `queue`
    /// (Alamofire's `withAllRequests(perform:)`).
    ///
    /// A request is among them from the moment it starts until it finishes
    /// or is cancelled, before its handlers run: one whose handler ran (or
    /// whose response you awaited) is not, unless that handler retried it.
    ///
    /// - Parameters:
    ///   - queue: Where `perform` runs (default: a global queue).
    ///   - perform: Receives the running requests.
    public func withAllRequests(on queue: DispatchQueue = .global(), perform: @escaping @Sendable (Set<Request>) -> Void) {
        let requests = Set(registry.all)
        queue.async { perform(requests) }
    }
}
