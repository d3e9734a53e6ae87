import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPURLResponse {
    /// The response's header fields as ``HTTPHeaders`` (Alamofire's
    /// `HTTPURLResponse.headers`).
    ///
    /// Foundation keeps one value per name: repeated fields arrive joined
    /// with `", "`.
    public var headers: HTTPHeaders {
        (allHeaderFields as? [String: String]).map(HTTPHeaders.init) ?? HTTPHeaders()
    }
}
