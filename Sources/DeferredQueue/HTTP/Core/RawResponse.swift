import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a finished transfer produced, before validation and serialization:
/// the outcome a request's suspended queue is resumed with.
struct RawResponse: Sendable {
    /// The request as last sent (after redirects).
    var request: URLRequest?
    /// The final response head.
    var head: ResponseHead?
    /// The body received; `nil` when no response arrived at all.
    var data: Data?
    /// A transport failure, cancellation or invalid URL; `nil` when a
    /// response arrived.
    var error: HTTPError?
    var end: Date
    /// Where a download's body is, once it finished.
    var fileURL: URL? = nil
    /// What a failed download left to resume from.
    var resumeData: Data? = nil
    /// What the validators chained before the request finished said of it,
    /// in order, up to the first failure (`nil`: none judged it yet). Each
    /// validation step reads its verdict here rather than judging again.
    var verdicts: [Request.ValidationResult]? = nil

    init(
        request: URLRequest?, response head: ResponseHead?, data: Data?, error: HTTPError?, end: Date,
        fileURL: URL? = nil, resumeData: Data? = nil, verdicts: [Request.ValidationResult]? = nil
    ) {
        self.request = request
        self.head = head
        self.data = data
        self.error = error
        self.end = end
        self.fileURL = fileURL
        self.resumeData = resumeData
        self.verdicts = verdicts
    }

    /// The head's `HTTPURLResponse`, made if it was not yet.
    var response: HTTPURLResponse? { head?.response }
}
