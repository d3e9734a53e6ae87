import Foundation

extension Request {
    /// Adds `interceptor` to this request: it adapts each later attempt and
    /// is asked about each later failure after the session's interceptors
    /// and the request's own, in the order added (Alamofire's `interceptor(_:)`).
    ///
    /// - Parameter interceptor: Adapts and retries this request.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func interceptor(_ interceptor: any RequestInterceptor) -> Self {
        add(interceptor)
    }

    /// Adds an adapter to this request, run after the session's and the
    /// request's other adapters (Alamofire's `adapt(using:)`).
    ///
    /// - Parameter adapter: Adapts each later attempt of this request.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func adapt(using adapter: any RequestAdapter) -> Self {
        add(Interceptor(adapters: [adapter]))
    }

    /// Adds a retrier to this request, asked after the session's and the
    /// request's other retriers (Alamofire's `retry(using:)`).
    ///
    /// - Parameter retrier: Decides each later failure of this request.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func retry(using retrier: any RequestRetrier) -> Self {
        add(Interceptor(retriers: [retrier]))
    }

    private func add(_ interceptor: any RequestInterceptor) -> Self {
        mutableState.withLock(owner: self) { $0.addedInterceptors.append(interceptor) }
        return self
    }

    /// This request's interceptors: the one it was made with, then those added.
    var requestInterceptors: [any RequestInterceptor] {
        let added = mutableState.withLock(owner: self) { $0.addedInterceptors }
        guard let interceptor else { return added }
        return [interceptor] + added
    }

    /// Whether this request has an interceptor of its own.
    var hasRequestInterceptors: Bool {
        hasOwnInterceptor || mutableState.withLock(owner: self) { !$0.addedInterceptors.isEmpty }
    }
}
