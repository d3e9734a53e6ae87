import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Resumable downloads: a download made from resume data sends `Range` and
// `If-Range` until one attempt's response decides what the partial file
// becomes (the start of this attempt's file, or nothing); a download that
// fails, or is cancelled asking for it, leaves resume data behind.
extension RequestStateMachine {
    /// The header fields that ask for the rest of the entity, while a
    /// partial file waits (added to every attempt until one takes it).
    var resumeHeaders: [(name: String, value: String)] { resumePoint?.headers ?? [] }

    enum DownloadFileStart: Sendable {
        /// Write the attempt's body after the partial file's first bytes;
        /// the file must end up `length` bytes long (the range's end).
        case resume(ResumePoint, length: Int64)
        /// A new file; remove the partial file, if any (the server sent the whole entity).
        case fresh(removing: URL?)
        /// A `206` that does not continue the partial file: fail (and remove
        /// it), saying why.
        case mismatch(removing: URL, reason: String)
    }

    /// Takes the resume point no attempt took over (its partial file is the
    /// caller's to remove).
    mutating func takeResumePoint() -> ResumePoint? {
        defer { resumePoint = nil }
        return resumePoint
    }

    /// The running attempt's first chunk arrived: how its file starts. A
    /// redirect's body, or a `416`'s, leaves the partial file waiting: the
    /// next hop, or the request started again without a range, decides.
    mutating func startDownloadFile() -> DownloadFileStart {
        guard let point = resumePoint else { return .fresh(removing: nil) }
        if let status = response?.statusCode, (300..<400).contains(status) || status == 416 { return .fresh(removing: nil) }
        resumePoint = nil
        guard let response else { return .fresh(removing: point.data.partialFile) }
        switch point.judge(response) {
        case .success(let range):
            return .resume(point, length: range.last + 1)
        case .failure(let refusal):
            guard response.statusCode == 206 else { return .fresh(removing: point.data.partialFile) }
            return .mismatch(removing: point.data.partialFile, reason: refusal.reason)
        }
    }

    /// A response that says the partial file cannot be continued (`416
    /// Range Not Satisfiable`): the partial file to remove before the
    /// request starts again without a range; `nil` otherwise.
    mutating func dropUnsatisfiableResume(after response: ResponseHead) -> URL? {
        guard response.statusCode == 416, let point = resumePoint else { return nil }
        resumePoint = nil
        return point.data.partialFile
    }

    /// The resume data for a download that ended now (failed, or cancelled
    /// asking for it): its last attempt's `file`, kept under `keptName`,
    /// continues the version `validator` names; with no file kept, the unused
    /// resume point's data, if any.
    mutating func recordResumeData(
        file: DownloadFile?, keptName: String?, validator: String?, request: URLRequest?, response: ResponseHead?
    ) {
        guard let file, let keptName, let validator, let url = request?.url else {
            resumeData = resumePoint?.data.encoded()
            return
        }
        let complete = response.flatMap { $0.statusCode == 206 ? $0.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init)?.complete : nil }
            ?? response.flatMap { $0.expectedContentLength > 0 ? $0.expectedContentLength : nil }
        resumeData = DownloadResumeData(
            url: url, headers: Self.resentHeaders(of: request), partialFileName: keptName, bytes: file.length,
            validator: validator, totalBytes: complete,
            // As the attempt applied it: JSON has no infinity, and decoding refuses zero or less.
            timeout: request.map { HTTPTransportAttempt.idleTimeout($0.timeoutInterval) }
        ).encoded()
    }

    /// The request's header fields, without those a resume sets itself.
    private static func resentHeaders(of request: URLRequest?) -> [String: String] {
        let own: Set<String> = ["range", "if-range", "accept-encoding"]
        return (request?.allHTTPHeaderFields ?? [:]).filter { !own.contains($0.key.lowercased()) }
    }
}
