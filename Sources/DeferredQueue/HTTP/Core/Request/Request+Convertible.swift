import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request's ``URLRequestConvertible``, held by one pointer in the request.
final class ConvertibleBox: Sendable {
    let convertible: any URLRequestConvertible

    init(_ convertible: any URLRequestConvertible) {
        self.convertible = convertible
    }
}

/// What `convertible` answers for a request that could not be built from a
/// URL and parameters: the reason, thrown.
struct UnbuildableRequest: URLRequestConvertible {
    let error: HTTPError

    func asURLRequest() throws -> URLRequest {
        throw error
    }
}

extension Request {
    /// What the request was made from (Alamofire's `convertible`): the
    /// ``URLRequestConvertible`` you passed (your router, for example), or
    /// for a request made from a URL the request as built — a `URLRequest`
    /// is one — or, when it could not be built, one that throws why.
    var madeFromConvertible: any URLRequestConvertible {
        if let madeFrom { return madeFrom.convertible }
        if let urlRequest { return urlRequest }
        return UnbuildableRequest(error: error ?? .abandoned)
    }
}

extension DataRequest {
    /// What the request was made from (Alamofire's `convertible`): the
    /// ``URLRequestConvertible`` you passed (your router, for example); for a
    /// request made from a URL, the request as built (a `URLRequest` is one);
    /// when it could not be built, one that throws why.
    public var convertible: any URLRequestConvertible { madeFromConvertible }
}

extension DataStreamRequest {
    /// What the request was made from (Alamofire's `convertible`; see
    /// ``DataRequest/convertible``).
    public var convertible: any URLRequestConvertible { madeFromConvertible }
}
