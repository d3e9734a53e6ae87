import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// Throws when the request cannot be sent as it is, as Alamofire's
    /// `URLRequest.validate()`: a `GET` with a body.
    ///
    /// The session checks more before each attempt (methods, header fields,
    /// `Content-Length`, see <doc:Security>); this is Alamofire's one check,
    /// for code that calls it itself.
    ///
    /// - Throws: ``HTTPError/urlRequestValidationFailed(reason:)`` with
    ///   ``HTTPError/URLRequestValidationFailureReason/bodyDataInGETRequest(_:)``.
    public func validate() throws {
        if (httpMethod ?? "GET").uppercased() == "GET", let body = httpBody {
            throw HTTPError.urlRequestValidationFailed(reason: .bodyDataInGETRequest(body))
        }
    }
}
