import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request whose response body is collected in memory, with chained
/// response handlers.
///
/// ```swift
/// request(url)
///     .response { response in print(response.response?.statusCode ?? 0) }   // 1st
///     .validate()                                                            // 2nd
///     .responseJSON { response in print(response.result) }                   // 3rd
///     .responseString { response in print(response.value ?? "") }           // 4th
/// ```
///
/// Serialization runs on the request's queue; each completion handler is
/// then dispatched to the `queue:` you pass — `.main` by default, as in
/// Alamofire. A Linux program must therefore run the main queue (an `async`
/// `main` does, as does `dispatchMain()`), or pass another queue.
///
/// See ``Request`` for the execution model, when a request starts, and
/// cancellation.
///
/// - Note: Not `final`, unlike the design contract says: ``UploadRequest`` is a
///   `DataRequest` (as in Alamofire 5), so that every response handler and
///   validator of a data request works on an upload too.
// `@unchecked Sendable` as `Request`: constants only here; what changes is in
// `Request.mutableState`, behind its one lock.
public class DataRequest: Request, @unchecked Sendable {
    /// The body of the final response once the request finished, or `nil`
    /// before then and after a failure without a body (Alamofire's `data`,
    /// which also grows while the body arrives:
    /// here the body is kept by one attempt until it ends; follow it with
    /// ``Request/downloadProgress(queue:closure:)``).
    public var data: Data? { settledResponse?.data }
}
