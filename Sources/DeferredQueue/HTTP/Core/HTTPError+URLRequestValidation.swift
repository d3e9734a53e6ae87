import Foundation

extension HTTPError {
    /// Why a request was refused before anything of it was sent.
    ///
    /// Reached through ``HTTPError/urlRequestValidationFailed(reason:)``. A ``Session``
    /// checks the request of every attempt as it would go on the wire — after parameter
    /// encoding, adapters, redirects and the session's own header fields — because a
    /// method or a header field holding a line break would let whoever controls that
    /// string add header fields, or a whole second request, to the connection:
    ///
    /// ```swift
    /// session.request(url, headers: ["X-Trace": userInput]).responseData { response in
    ///     if case .failure(.urlRequestValidationFailed(.invalidHeaderValue(let name))) = response.result {
    ///         print("refused \(name)")   // userInput held a CR, LF, NUL or another control character
    ///     }
    /// }
    /// ```
    public enum URLRequestValidationFailureReason: Sendable, CustomStringConvertible {
        /// The method is not an RFC 9110 token (one or more ASCII letters, digits and
        /// the symbols RFC 9110 calls `tchar`): empty, or holding a space, a control
        /// character, a separator or a non-ASCII character.
        case invalidMethod(String)
        /// A header field name is not an RFC 9110 token: empty, or holding a space, `:`, a
        /// control character, a separator or a non-ASCII character.
        case invalidHeaderName(String)
        /// The value of the header field `name` holds a control character (CR, LF, NUL, any
        /// other below U+0020 except the horizontal tab, or DEL). The value itself is never
        /// repeated: it may be a secret.
        case invalidHeaderValue(name: String)

        /// What was refused and how to fix it.
        public var description: String {
            switch self {
            case .invalidMethod(let method):
                return "The HTTP method \(Self.quoted(method)) is not a valid token (RFC 9110: letters, digits and "
                    + "!#$%&'*+-.^_`|~ only), so the request was not sent. A method with a space or a line break could "
                    + "smuggle a second request; use HTTPMethod's constants or a plain token such as \"PURGE\"."
            case .invalidHeaderName(let name):
                return "The header field name \(Self.quoted(name)) is not a valid token (RFC 9110: letters, digits and "
                    + "!#$%&'*+-.^_`|~ only, no space or colon), so the request was not sent. Check where the name comes from."
            case .invalidHeaderValue(let name):
                return "The value of the header field \"\(name)\" contains a control character (CR, LF, NUL or another "
                    + "below U+0020 except tab, or DEL), so the request was not sent: a line break would add header fields "
                    + "of the sender's choosing. Remove the control characters (or encode the value, e.g. in base64) before "
                    + "sending it."
            }
        }

        /// `text` quoted, with control characters escaped and long text cut, so the
        /// description cannot itself break a log line.
        private static func quoted(_ text: String) -> String {
            let shown = text.unicodeScalars.count > 64 ? String(String.UnicodeScalarView(text.unicodeScalars.prefix(64))) + "…" : text
            return shown.debugDescription
        }
    }
}
