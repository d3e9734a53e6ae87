import Foundation

extension HTTPError {
    /// Alamofire's name for ``SerializationFailureReason``.
    public typealias ResponseSerializationFailureReason = SerializationFailureReason
    /// Alamofire's name for ``ValidationFailureReason``.
    public typealias ResponseValidationFailureReason = ValidationFailureReason

    /// ``invalidURL(_:)`` for what was given as a URL, under Alamofire's
    /// label (`AFError.invalidURL(url:)`), for adapters and routers that throw it.
    public static func invalidURL(url: any URLConvertible) -> HTTPError {
        .invalidURL("\(url)")
    }
}

extension Error {
    /// The error as an ``HTTPError``, if it is one (Alamofire's `asAFError`);
    /// ``DeferredError/cancelled`` as ``HTTPError/cancelled``: what awaiting a
    /// `serializing…` deferred throws when its task or the deferred is
    /// cancelled, where Alamofire's `DataTask` throws `explicitlyCancelled`.
    public var asHTTPError: HTTPError? {
        if let error = self as? HTTPError { return error }
        if case .cancelled? = self as? DeferredError { return .cancelled }
        return nil
    }

    /// Whether the error says the request or the deferred was cancelled
    /// (``HTTPError/cancelled``, ``DeferredError/cancelled``): so
    /// `result.failure?.isExplicitlyCancelledError` reads a deferred's
    /// `Result<Value, any Error>` as Alamofire's reads its `Result<Value, AFError>`.
    public var isExplicitlyCancelledError: Bool {
        asHTTPError?.isExplicitlyCancelledError ?? false
    }

    /// The error as an ``HTTPError``; stops the program with `message` if it
    /// is not one (Alamofire's `asAFError(orFailWith:file:line:)`, for tests).
    public func asHTTPError(orFailWith message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) -> HTTPError {
        guard let error = asHTTPError else { fatalError(message(), file: file, line: line) }
        return error
    }
}
