import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Validation is enqueued like any handler: it judges the response when its
// turn comes, and only the handlers chained after it see the verdict.
// Validators run only when a response arrived; the first failure wins.

extension Request {
    /// What a validator returns: success, or the error that fails the handlers after it.
    public typealias ValidationResult = Result<Void, any Error>

    /// The form every validator takes inside: request, response, body in
    /// memory (`nil` for downloads and streams).
    typealias RawValidation = @Sendable (URLRequest?, ResponseHead, Data?) -> ValidationResult

    /// Fails the handlers chained after it unless the status is 2xx and, when
    /// the request sent an `Accept` header, the response's content type is
    /// one it accepts.
    ///
    /// - Returns: The request, for chaining.
    @discardableResult
    public func validate() -> Self {
        let accepted = Self.acceptableContentTypes(fromAccept: urlRequest?.value(forHTTPHeaderField: "Accept"))
        addValidation(inline: true) { _, response, _ in Self.check(statusCode: response.statusCode, in: 200..<300) }
        if !accepted.isEmpty { addContentValidation { response, isEmpty in Self.check(contentTypeOf: response, isEmpty: isEmpty, in: accepted) } }
        return self
    }

    /// Fails the handlers chained after it unless the status code is in
    /// `acceptableStatusCodes`.
    ///
    /// - Parameter acceptableStatusCodes: For example `200..<300` or `[200, 304]`.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func validate(statusCode acceptableStatusCodes: some Sequence<Int>) -> Self {
        let codes = Set(acceptableStatusCodes)
        addValidation(inline: true) { _, response, _ in Self.check(statusCode: response.statusCode, in: codes) }
        return self
    }

    /// Fails the handlers chained after it unless the response's MIME type
    /// matches one of `acceptableContentTypes` (`"application/json"`,
    /// `"text/*"`, `"*/*"`). An empty body (or downloaded file) passes.
    ///
    /// - Parameter acceptableContentTypes: The acceptable MIME types, any
    ///   sequence of them (an array, a set). Read once, here (Alamofire reads
    ///   them each time a response is checked): the check then runs none of
    ///   your code, so it may judge a response where it arrives, on the
    ///   transport's queue or event loop.
    /// - Returns: The request, for chaining.
    @preconcurrency
    @discardableResult
    public func validate<S: Sequence & Sendable>(
        contentType acceptableContentTypes: @escaping @Sendable @autoclosure () -> S
    ) -> Self where S.Element == String {
        let acceptable = Array(acceptableContentTypes())
        addContentValidation { response, isEmpty in
            Self.check(contentTypeOf: response, isEmpty: isEmpty, in: acceptable)
        }
        return self
    }

    // MARK: - Checks

    static func check(statusCode: Int, in acceptable: some Collection<Int>) -> Result<Void, any Error> {
        acceptable.contains(statusCode)
            ? .success(())
            : .failure(HTTPError.responseValidationFailed(reason: .unacceptableStatusCode(code: statusCode)))
    }

    /// The error lists the acceptable types sorted, as Alamofire's does. A
    /// response without a (readable) type passes only `*/*`, as in Alamofire.
    static func check(contentTypeOf response: ResponseHead, isEmpty: Bool, in acceptable: [String]) -> Result<Void, any Error> {
        if isEmpty { return .success(()) }
        guard let header = response.value(forHTTPHeaderField: "Content-Type"),
              let mimeType = MIMEType(header)
        else {
            if acceptable.contains(where: { MIMEType($0)?.isWildcard == true }) { return .success(()) }
            return .failure(HTTPError.responseValidationFailed(reason: .missingContentType(acceptable: acceptable.sorted())))
        }
        if acceptable.compactMap(MIMEType.init).contains(where: { $0.matches(mimeType) }) {
            return .success(())
        }
        return .failure(HTTPError.responseValidationFailed(
            reason: .unacceptableContentType(acceptable: acceptable.sorted(), responseContentType: mimeType.description)
        ))
    }

    /// The MIME types listed in an `Accept` header, without parameters.
    static func acceptableContentTypes(fromAccept accept: String?) -> [String] {
        guard let accept else { return [] }
        return accept.split(separator: ",").compactMap { item in
            let type = item.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
            return type.isEmpty ? nil : type
        }
    }
}

/// A `type/subtype` pair, lowercased, where either may be `*`.
struct MIMEType: Equatable, CustomStringConvertible {
    let type: String
    let subtype: String

    init?(_ string: String) {
        let essence = string.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        type = String(parts[0])
        subtype = String(parts[1])
    }

    /// `*/*`: admits any type, and a response without one.
    var isWildcard: Bool { type == "*" && subtype == "*" }

    /// `true` when `self`, as an acceptable pattern, admits `other`.
    func matches(_ other: MIMEType) -> Bool {
        (type == "*" || type == other.type) && (subtype == "*" || subtype == other.subtype)
    }

    var description: String { "\(type)/\(subtype)" }
}

extension DataRequest {
    /// A validator of a response whose body is in memory: the request as
    /// sent, the response, and the body.
    public typealias Validation = @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse, _ data: Data?) -> ValidationResult

    /// Fails the handlers chained after it when `validation` returns a failure.
    ///
    /// An ``HTTPError`` returned by `validation` is delivered as is; any other
    /// error as ``HTTPError/ValidationFailureReason/customValidationFailed(error:)``.
    ///
    /// - Parameter validation: Judges the request, response and body.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        addValidation { request, head, data in validation(request, head.response, data) }
        return self
    }
}

extension DownloadRequest {
    /// A validator of a download: the request as sent, the response, and the
    /// downloaded file (at its destination; `nil` when there is none).
    public typealias Validation = @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse, _ fileURL: URL?) -> ValidationResult

    /// Fails the handlers chained after it when `validation` returns a
    /// failure; it judges the downloaded file, which it may read.
    ///
    /// - Parameter validation: Judges the request, response and file.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        appendValidationStep { raw, head in validation(raw.request, head.response, raw.fileURL) }
        return self
    }
}

extension DataStreamRequest {
    /// A validator of a stream's response head: the request as sent and the
    /// response (the body is still to come).
    public typealias Validation = @Sendable (_ request: URLRequest?, _ response: HTTPURLResponse) -> ValidationResult

    /// Ends the stream when `validation` returns a failure for its head: the
    /// body is dropped and `.complete` carries the error.
    ///
    /// - Parameter validation: Judges the request and the response head.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func validate(_ validation: @escaping Validation) -> Self {
        addValidation { request, head, _ in validation(request, head.response) }
        return self
    }
}
