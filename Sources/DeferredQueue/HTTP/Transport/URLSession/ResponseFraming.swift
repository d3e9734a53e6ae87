import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Judges a response head's framing — where its body ends — as strictly as
/// AsyncHTTPClient's parser (llhttp) does, for ``URLSessionTransport``.
///
/// libcurl, under URLSession on Linux, accepts framing that two parsers may
/// read differently, which is what response smuggling and cache poisoning
/// feed on: of two different `Content-Length` fields the last wins, of a list
/// `Content-Length: 5, 10` the first, and `Transfer-Encoding` silently
/// overrides a `Content-Length`. Its parser cannot be changed, but corelibs
/// hands over every field it received, repeated ones joined with `", "`, so a
/// head whose framing is not one unambiguous length can be refused before any
/// of its body is delivered. (Negative and non-numeric lengths, and malformed
/// chunk sizes, libcurl refuses itself; ``URLSessionAttemptTask`` reports them
/// as the same error.)
enum ResponseFraming {
    /// Why a head's framing is ambiguous, or `nil` when it is sound.
    ///
    /// Refused: a `Content-Length` that is not one plain decimal number of at
    /// most ``ContentLength/maximumDigits`` digits (so also two fields or a list, even
    /// with equal values: RFC 9112 §6.3 lets a recipient reject them, and
    /// AsyncHTTPClient does), and `Content-Length` beside `Transfer-Encoding`.
    ///
    /// - Parameters:
    ///   - length: The head's `Content-Length`, repeated fields joined with `", "`.
    ///   - transferEncoding: Its `Transfer-Encoding`, likewise.
    static func violation(contentLength length: String?, transferEncoding: String?) -> String? {
        guard let length else { return nil }
        if transferEncoding != nil {
            return "The response declares both Transfer-Encoding and Content-Length, so where its body ends is ambiguous."
        }
        guard ContentLength.parse(length) != nil else {
            return "The response's Content-Length \(String(length.prefix(64)).debugDescription) is not one decimal length "
                + "(several fields or a list, a sign, another character, or too many digits), so where its body ends is ambiguous."
        }
        return nil
    }
}
