import Foundation

// Alamofire's static accessors: `Session(interceptor: .retryPolicy)`,
// `request(url, interceptor: .adapter { request, session, completion in … })`.

extension RequestAdapter where Self == Adapter {
    /// An ``Adapter`` from `closure`.
    ///
    /// - Parameter closure: Adapts each request, calling its completion once.
    /// - Returns: The adapter.
    public static func adapter(using closure: @escaping AdaptHandler) -> Adapter {
        Adapter(closure)
    }
}

extension RequestRetrier where Self == Retrier {
    /// A ``Retrier`` from `closure`.
    ///
    /// - Parameter closure: Decides each failed attempt, calling its completion once.
    /// - Returns: The retrier.
    public static func retrier(using closure: @escaping RetryHandler) -> Retrier {
        Retrier(closure)
    }
}

extension RequestInterceptor where Self == Interceptor {
    /// An ``Interceptor`` of two closures.
    ///
    /// - Parameters:
    ///   - adapter: Adapts every request.
    ///   - retrier: Decides every failed attempt.
    /// - Returns: The interceptor.
    public static func interceptor(adapter: @escaping AdaptHandler, retrier: @escaping RetryHandler) -> Interceptor {
        Interceptor(adaptHandler: adapter, retryHandler: retrier)
    }

    /// An ``Interceptor`` of one adapter and one retrier.
    ///
    /// - Parameters:
    ///   - adapter: Adapts every request.
    ///   - retrier: Decides every failed attempt.
    /// - Returns: The interceptor.
    public static func interceptor(adapter: any RequestAdapter, retrier: any RequestRetrier) -> Interceptor {
        Interceptor(adapter: adapter, retrier: retrier)
    }

    /// An ``Interceptor`` of lists.
    ///
    /// - Parameters:
    ///   - adapters: The adapters, in the order they run.
    ///   - retriers: The retriers, in the order they are asked.
    ///   - interceptors: Each adapts after `adapters` and is asked after `retriers`.
    /// - Returns: The interceptor.
    public static func interceptor(
        adapters: [any RequestAdapter] = [], retriers: [any RequestRetrier] = [], interceptors: [any RequestInterceptor] = []
    ) -> Interceptor {
        Interceptor(adapters: adapters, retriers: retriers, interceptors: interceptors)
    }
}

extension RequestInterceptor where Self == RetryPolicy {
    /// A ``RetryPolicy`` with its defaults.
    public static var retryPolicy: RetryPolicy { RetryPolicy() }

    /// A ``RetryPolicy`` (Alamofire's accessor, with its labels).
    ///
    /// - Parameters:
    ///   - retryLimit: The most retries after the first attempt.
    ///   - exponentialBackoffBase: The base of the exponential backoff.
    ///   - exponentialBackoffScale: The first retry's delay in seconds, before jitter.
    ///   - retryableHTTPMethods: Methods that may be retried.
    ///   - retryableHTTPStatusCodes: Statuses that cause a retry.
    ///   - retryableURLErrorCodes: Transport errors that cause a retry.
    /// - Returns: The policy.
    public static func retryPolicy(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods,
        retryableHTTPStatusCodes: Set<Int> = RetryPolicy.defaultRetryableHTTPStatusCodes,
        retryableURLErrorCodes: Set<URLError.Code> = RetryPolicy.defaultRetryableURLErrorCodes
    ) -> RetryPolicy {
        RetryPolicy(
            retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
            exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods,
            retryableHTTPStatusCodes: retryableHTTPStatusCodes, retryableURLErrorCodes: retryableURLErrorCodes
        )
    }
}

extension RequestInterceptor where Self == ConnectionLostRetryPolicy {
    /// A ``ConnectionLostRetryPolicy`` with its defaults.
    public static var connectionLostRetryPolicy: ConnectionLostRetryPolicy { ConnectionLostRetryPolicy() }

    /// A ``ConnectionLostRetryPolicy`` (Alamofire's accessor, with its labels).
    ///
    /// - Parameters:
    ///   - retryLimit: The most retries after the first attempt.
    ///   - exponentialBackoffBase: The base of the exponential backoff.
    ///   - exponentialBackoffScale: The first retry's delay in seconds, before jitter.
    ///   - retryableHTTPMethods: Methods that may be retried.
    /// - Returns: The policy.
    public static func connectionLostRetryPolicy(
        retryLimit: UInt = RetryPolicy.defaultRetryLimit,
        exponentialBackoffBase: UInt = RetryPolicy.defaultExponentialBackoffBase,
        exponentialBackoffScale: Double = RetryPolicy.defaultExponentialBackoffScale,
        retryableHTTPMethods: Set<HTTPMethod> = RetryPolicy.defaultRetryableHTTPMethods
    ) -> ConnectionLostRetryPolicy {
        ConnectionLostRetryPolicy(
            retryLimit: retryLimit, exponentialBackoffBase: exponentialBackoffBase,
            exponentialBackoffScale: exponentialBackoffScale, retryableHTTPMethods: retryableHTTPMethods
        )
    }
}
