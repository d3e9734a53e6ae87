import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// A copy of this request, whose `timeoutInterval` was assigned, that
    /// shares no storage with it, so that the mutations that follow do not
    /// copy it again.
    ///
    /// On swift-corelibs-foundation, the copy that the first mutation of a
    /// shared `URLRequest` makes (`NSURLRequest.mutableCopy`) assigns every
    /// property, the method included — and assigning a method normalises it
    /// through an `NSString` case-insensitive comparison, about half the cost
    /// of the copy. This builds the same request, property by property, the
    /// method only when it is not the initial `GET`. The properties are those
    /// corelibs' copy carries over (`NSURLRequest.setValues(from:)`), and the
    /// timeout is assigned: corelibs' `URLRequest` records whether it was
    /// (an assigned one wins over the configuration's `timeoutIntervalForRequest`)
    /// in a flag that cannot be read — hence the precondition. Elsewhere
    /// Foundation's copy is cheap and used as it is.
    ///
    /// - Parameter headerFields: The copy's header fields, when the caller
    ///   replaces them anyway; `nil` keeps this request's.
    /// - Returns: The copy; only correct when this request's timeout was
    ///   assigned (``Request/timeoutIsAssigned``).
    func duplicatedWithAssignedTimeout(headerFields: [String: String]? = nil) -> URLRequest {
        #if canImport(FoundationNetworking)
        guard let url else { return self }
        var copy = URLRequest(url: url, cachePolicy: cachePolicy, timeoutInterval: timeoutInterval)
        copy.timeoutInterval = timeoutInterval  // the setter records the assignment
        // `init(url:)` stores the absolute URL; the copy keeps the URL as it is.
        copy.url = url
        if let mainDocumentURL { copy.mainDocumentURL = mainDocumentURL }
        if let method = httpMethod, method != "GET" { copy.httpMethod = method }
        if let fields = headerFields ?? allHTTPHeaderFields { copy.allHTTPHeaderFields = fields }
        if let body = httpBody {
            copy.httpBody = body
        } else if let stream = httpBodyStream {
            copy.httpBodyStream = stream
        }
        if networkServiceType != .default { copy.networkServiceType = networkServiceType }
        if !allowsCellularAccess { copy.allowsCellularAccess = false }
        if !httpShouldHandleCookies { copy.httpShouldHandleCookies = false }
        if !pipelining { copy.pipelining = false }
        return copy
        #else
        var copy = self
        if let headerFields { copy.allHTTPHeaderFields = headerFields }
        return copy
        #endif
    }
}

#if canImport(FoundationNetworking)
/// `httpShouldUsePipelining` (deprecated) for `duplicatedWithAssignedTimeout()`, which must carry
/// it over like Foundation's own copy, without a deprecation warning.
private protocol PipeliningSetting {
    var httpShouldUsePipelining: Bool { get set }
}

extension URLRequest: PipeliningSetting {}

extension PipeliningSetting {
    fileprivate var pipelining: Bool {
        get { httpShouldUsePipelining }
        set { httpShouldUsePipelining = newValue }
    }
}
#endif
