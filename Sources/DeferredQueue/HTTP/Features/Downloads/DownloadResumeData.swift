import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``DownloadRequest/resumeData`` holds: enough to ask the server for
/// the rest of an entity, and where its first part waits.
///
/// The format is JSON, versioned, and stable across releases (a newer
/// version is refused, never misread):
///
/// ```json
/// {"format": "DeferredQueue.DownloadResumeData", "version": 1,
///  "url": "https://example.com/big.iso", "headers": {"Authorization": "…"},
///  "partialFileName": "DeferredQueue-resume-6F1C…", "bytes": 52428800,
///  "validator": "\"5e8f-1a2b\"", "totalBytes": 734003200}
/// ```
///
/// - `partialFileName`: a file in the temporary directory holding the first
///   `bytes` bytes of the body. Only a name, never a path: resume data read
///   back from storage cannot make a download write anywhere else.
/// - `validator`: the response's strong `ETag`, or its `Last-Modified`,
///   sent back as `If-Range` so that a changed entity is sent whole.
/// - `headers`: the request's header fields, sent again.
struct DownloadResumeData: Codable, Sendable, Equatable {
    static let format = "DeferredQueue.DownloadResumeData"
    static let currentVersion = 1
    /// Partial files' names start so; nothing else is ever resumed into.
    static let partialFilePrefix = "DeferredQueue-resume-"

    var format = Self.format
    var version = Self.currentVersion
    var url: URL
    var headers: [String: String]
    var partialFileName: String
    var bytes: Int64
    var validator: String
    var totalBytes: Int64?
    /// The request's timeout, kept for the resumed one (as Apple's resume
    /// data keeps the original request); absent from older data.
    var timeout: Double?

    /// The partial file, in the temporary directory.
    var partialFile: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent(partialFileName, isDirectory: false)
    }

    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads resume data, refusing anything this version did not write.
    init(decoding data: Data) throws(ResumeDataError) {
        let decoded: DownloadResumeData
        do {
            decoded = try JSONDecoder().decode(DownloadResumeData.self, from: data)
        } catch {
            throw .unreadable("not DeferredQueue download resume data (\(data.count) bytes)")
        }
        guard decoded.format == Self.format else { throw .unreadable("format \(decoded.format)") }
        guard decoded.version == Self.currentVersion else {
            throw .unreadable("version \(decoded.version); this release reads version \(Self.currentVersion)")
        }
        guard ["http", "https"].contains(decoded.url.scheme?.lowercased() ?? "") else {
            throw .unreadable("the URL \(decoded.url.absoluteString) is not http or https")
        }
        let name = decoded.partialFileName
        guard name.hasPrefix(Self.partialFilePrefix), !name.contains("/"), !name.contains("\\"), !name.contains("\0"),
              name.count <= 128
        else { throw .unreadable("the partial file name \(name) is not one this library wrote") }
        guard decoded.bytes > 0, !decoded.validator.isEmpty, decoded.validator.count <= 1024 else {
            throw .unreadable("no bytes or no validator to resume with")
        }
        if let timeout = decoded.timeout, !(timeout.isFinite && timeout > 0) {
            throw .unreadable("a timeout of \(timeout) s")
        }
        if let total = decoded.totalBytes, total < decoded.bytes {
            throw .unreadable("a total of \(total) bytes is fewer than the \(decoded.bytes) downloaded")
        }
        // Set with `setValue`, which drops a value with a line break without a word.
        if let violation = RequestSyntax.violation(method: "GET", fields: decoded.headers) {
            throw .unreadable("a header field may not be sent: \(violation)")
        }
        // Sent as `If-Range` after the session checked the request's own fields.
        guard RequestSyntax.check(value: decoded.validator) == .valid else {
            throw .unreadable("the validator is not a header value that may be sent")
        }
        self = decoded
    }

    init(
        url: URL, headers: [String: String], partialFileName: String, bytes: Int64, validator: String, totalBytes: Int64?,
        timeout: Double? = nil
    ) {
        self.timeout = timeout
        self.url = url
        self.headers = headers
        self.partialFileName = partialFileName
        self.bytes = bytes
        self.validator = validator
        self.totalBytes = totalBytes
    }

    /// The resume data for a download that ended after `bytes` bytes of
    /// `response`'s body, sent for `request`: `nil` unless the server could
    /// send the rest of the same entity (a `GET`, a `200` or `206` with a
    /// strong `ETag` or a `Last-Modified`, no content coding).
    static func validator(request: URLRequest?, response: ResponseHead?) -> String? {
        guard let request, (request.httpMethod ?? "GET").uppercased() == "GET", let response,
              response.statusCode == 200 || response.statusCode == 206
        else { return nil }
        let coding = (response.value(forHTTPHeaderField: "Content-Encoding") ?? "identity").trimmingCharacters(in: .whitespaces)
        guard coding.isEmpty || coding.lowercased() == "identity" else { return nil }
        if response.value(forHTTPHeaderField: "Accept-Ranges")?.lowercased().contains("none") == true { return nil }
        if let tag = response.value(forHTTPHeaderField: "ETag")?.trimmingCharacters(in: .whitespaces),
           tag.hasPrefix("\""), tag.hasSuffix("\""), tag.count >= 2 {
            return tag
        }
        return response.value(forHTTPHeaderField: "Last-Modified")?.trimmingCharacters(in: .whitespaces)
            .nilIfEmpty
    }
}

/// Resume data that cannot be used.
public enum ResumeDataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not resume data this version of the library wrote (or not resume data at all).
    case unreadable(String)

    public var description: String {
        switch self {
        case .unreadable(let reason): "the download cannot resume from this data: \(reason)"
        }
    }
}

/// Where a resumed download stands, in its request's state: the partial
/// file and how many of its bytes to keep.
struct ResumePoint: Sendable, Equatable {
    let data: DownloadResumeData

    /// `Range` and `If-Range`, and no content coding (offsets count the
    /// entity's own bytes).
    var headers: [(name: String, value: String)] {
        [("Range", "bytes=\(data.bytes)-"), ("If-Range", data.validator), ("Accept-Encoding", "identity")]
    }

    /// Whether the partial file is a regular file (not a link) holding at
    /// least the bytes to keep.
    var partialFileIsIntact: Bool {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: data.partialFile.path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return false }
        return size >= data.bytes
    }

    /// The range of the entity `response` sends when it is the rest of the
    /// entity from this point, else `nil`: a `206` whose `Content-Range`
    /// starts at ``DownloadResumeData/bytes`` and runs to the end of an
    /// entity of the length known before (the request asked for all the
    /// rest), whose `Content-Length`, if any, is the range's, and whose
    /// `ETag` or `Last-Modified`, if any, is the version resumed. (A server
    /// that ignores `If-Range` could otherwise splice another version, or a
    /// piece, onto the partial file.)
    func continuation(in response: ResponseHead) -> ContentRange? {
        try? judge(response).get()
    }

    /// Why `response` does not continue the partial file.
    struct Refusal: Error {
        /// The header at fault, for the failure's description.
        let reason: String
    }

    /// ``continuation(in:)``, or why not.
    func judge(_ response: ResponseHead) -> Result<ContentRange, Refusal> {
        guard response.statusCode == 206 else { return .failure(Refusal(reason: "it is not a 206")) }
        guard let value = response.value(forHTTPHeaderField: "Content-Range"), let range = ContentRange(value) else {
            return .failure(Refusal(reason: "its Content-Range is missing or unreadable"))
        }
        guard range.first == data.bytes else {
            return .failure(Refusal(reason: "its Content-Range starts at byte \(range.first), not \(data.bytes)"))
        }
        let complete = range.complete ?? data.totalBytes
        if let complete, range.last != complete - 1 {
            return .failure(Refusal(reason: "its Content-Range ends at byte \(range.last), before the entity's end"))
        }
        if let known = data.totalBytes, let complete = range.complete, known != complete {
            return .failure(Refusal(reason: "its Content-Range gives the entity \(complete) bytes, not \(known)"))
        }
        let declared = response.expectedContentLength
        if declared >= 0, declared != range.last - range.first + 1 {
            return .failure(Refusal(reason: "its Content-Length is not its Content-Range's length"))
        }
        let field = data.validator.hasPrefix("\"") ? "ETag" : "Last-Modified"
        if let version = response.value(forHTTPHeaderField: field)?.trimmingCharacters(in: .whitespaces), version != data.validator {
            return .failure(Refusal(reason: "its \(field) names another version of the entity"))
        }
        return .success(range)
    }
}

/// A `Content-Range: bytes first-last/complete` value (RFC 9110 §14.4).
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    var complete: Int64?

    init?(_ value: String) {
        let value = value.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let bounds = parts[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        // At most 18 digits each (`number`): `last + 1`, a length, cannot overflow.
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), last >= first
        else { return nil }
        (self.first, self.last) = (first, last)
        if parts[1] == "*" {
            complete = nil
        } else {
            guard let complete = Self.number(parts[1]), complete > last else { return nil }
            self.complete = complete
        }
    }

    /// Plain decimal digits only: `Int64(_:)` also takes a sign (`+0-+99/+100`).
    private static func number(_ text: Substring) -> Int64? {
        guard text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return ContentLength.parse(String(text))
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
