import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a finished transfer produced, before validation and serialization:
/// the outcome a request's suspended queue is resumed with.
///
/// Every handler of the request reads a copy, and validation steps pass it
/// on: the fields live in one immutable object, so a copy is one reference
/// (not eight fields, each retained), and the request's `Deferred` holds it
/// inline rather than in a cell of its own. A write, which only a failure, a
/// validation step or a download's last step makes, replaces that object.
struct RawResponse: Sendable {
    private var fields: Fields

    /// The fields, never changed once made (see ``RawResponse``).
    private final class Fields: Sendable {
        let request: URLRequest?
        let head: ResponseHead?
        let data: Data?
        let error: HTTPError?
        let end: Date
        let fileURL: URL?
        let resumeData: Data?
        let verdicts: [Request.ValidationResult]?

        init(
            request: URLRequest?, head: ResponseHead?, data: Data?, error: HTTPError?, end: Date,
            fileURL: URL?, resumeData: Data?, verdicts: [Request.ValidationResult]?
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

        /// These fields with `error`, `fileURL` or `resumeData` replaced.
        func replacing(
            error: HTTPError?? = nil, fileURL: URL?? = nil, resumeData: Data?? = nil
        ) -> Fields {
            Fields(
                request: request, head: head, data: data, error: error ?? self.error, end: end,
                fileURL: fileURL ?? self.fileURL, resumeData: resumeData ?? self.resumeData, verdicts: verdicts
            )
        }
    }

    init(
        request: URLRequest?, response head: ResponseHead?, data: Data?, error: HTTPError?, end: Date,
        fileURL: URL? = nil, resumeData: Data? = nil, verdicts: [Request.ValidationResult]? = nil
    ) {
        fields = Fields(
            request: request, head: head, data: data, error: error, end: end,
            fileURL: fileURL, resumeData: resumeData, verdicts: verdicts
        )
    }

    /// The request as last sent (after redirects).
    var request: URLRequest? { fields.request }
    /// The final response head.
    var head: ResponseHead? { fields.head }
    /// The body received; `nil` when no response arrived at all.
    var data: Data? { fields.data }
    /// A transport failure, cancellation or invalid URL; `nil` when a
    /// response arrived.
    var error: HTTPError? {
        get { fields.error }
        set { fields = fields.replacing(error: .some(newValue)) }
    }
    var end: Date { fields.end }
    /// Where a download's body is, once it finished.
    var fileURL: URL? {
        get { fields.fileURL }
        set { fields = fields.replacing(fileURL: .some(newValue)) }
    }
    /// What a failed download left to resume from.
    var resumeData: Data? {
        get { fields.resumeData }
        set { fields = fields.replacing(resumeData: .some(newValue)) }
    }
    /// What the validators chained before the request finished said of it,
    /// in order, up to the first failure (`nil`: none judged it yet). Each
    /// validation step reads its verdict here rather than judging again.
    var verdicts: [Request.ValidationResult]? { fields.verdicts }

    /// The head's `HTTPURLResponse`, made if it was not yet.
    var response: HTTPURLResponse? { head?.response }

    /// This response as a handler chained after the first `count` validators
    /// sees it: failed by the one of them that failed, unless it failed
    /// already. (The judging stops at the first failure, so a failure is the
    /// last verdict, and it is one of the first `count` when there are no more.)
    func applyingVerdicts(of count: Int) -> RawResponse {
        guard count > 0, error == nil, let verdicts, verdicts.count <= count, case .failure(let failure) = verdicts.last else {
            return self
        }
        return Request.rejecting(self, with: failure)
    }
}

extension Result<RawResponse, any Error> {
    /// This outcome as a handler chained after the first `count` validators
    /// sees it (``RawResponse/applyingVerdicts(of:)``).
    func applyingVerdicts(of count: Int) -> Self {
        guard count > 0, case .success(let raw) = self else { return self }
        return .success(raw.applyingVerdicts(of: count))
    }
}
