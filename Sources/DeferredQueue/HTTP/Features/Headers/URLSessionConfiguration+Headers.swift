import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionConfiguration {
    /// `httpAdditionalHeaders` as ``HTTPHeaders`` (Alamofire's `headers`):
    /// read, the fields whose names and values are strings; set, all of them.
    /// The session checks them as it starts each request (see <doc:Security>).
    public var headers: HTTPHeaders {
        get {
            var fields = HTTPHeaders()
            let strings = (httpAdditionalHeaders ?? [:]).compactMap { name, value in
                (name as? String).flatMap { name in (value as? String).map { (name, $0) } }
            }
            for (name, value) in strings.sorted(by: { $0.0 < $1.0 }) { fields.add(name: name, value: value) }
            return fields
        }
        set { httpAdditionalHeaders = newValue.dictionary }
    }

    /// `httpAdditionalHeaders` as URLSession sends them: every name and value as text.
    var additionalHeaderFields: [(name: String, value: String)] {
        (httpAdditionalHeaders ?? [:]).map { (name: "\($0.key)", value: "\($0.value)") }
    }
}
