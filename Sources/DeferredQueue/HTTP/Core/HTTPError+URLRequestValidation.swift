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
        /// The request sets `Content-Length` to `declared`, which is not the
        /// length of the body it sends, `bodyLength` bytes (0 for none, -1 for
        /// a file whose size cannot be read or a body stream, whose length is
        /// known only once it was sent): the server would end the body
        /// early and read the rest as a second request, or wait for bytes that
        /// never come. Omit the field — the transport sets it — or give the
        /// body's exact length.
        case invalidContentLength(declared: String, bodyLength: Int64)
        /// The request sets `Transfer-Encoding` to `value`: anything but
        /// `chunked`, or `chunked` beside a `Content-Length` or without a
        /// body. How the body is framed is the transport's to say.
        case invalidTransferEncoding(String)
        /// A `GET` request has a body, which the session's transport cannot
        /// send (URLSession refuses one on every platform); Alamofire's reason
        /// of the same name. Also a `HEAD` with a body, which libcurl drops
        /// unsent. The body (empty when it is a file).
        case bodyDataInGETRequest(Data)
        /// A `URLSessionConfiguration`'s `httpAdditionalHeaders` sets a field
        /// that frames the body (`Content-Length`, `Transfer-Encoding`), which
        /// URLSession would add to every request whatever its body.
        case framingFieldInConfiguration(name: String)

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
            case .invalidContentLength(let declared, let bodyLength):
                let body = bodyLength < 0 ? "its body's length cannot be read" : "its body is \(bodyLength) bytes"
                return "The request sets Content-Length to \(Self.quoted(declared)), but \(body), so "
                    + "it was not sent: a server would read the body's remainder as another request (or wait for bytes that "
                    + "never come). Leave Content-Length out, the transport sets it, or give the body's exact length."
            case .invalidTransferEncoding(let value):
                return "The request sets Transfer-Encoding to \(Self.quoted(value)), so it was not sent: only \"chunked\" "
                    + "without a Content-Length, and with a body, frames a body unambiguously (without one, the server waits "
                    + "for a chunk that never comes). Leave Transfer-Encoding out; the transport frames the body."
            case .framingFieldInConfiguration(let name):
                return "The URLSessionConfiguration's httpAdditionalHeaders sets \(Self.quoted(name)), which URLSession "
                    + "would add to every request whatever its body, so no request of this session is sent: a server would "
                    + "read a body's remainder as another request, or wait for bytes that never come. Remove it; the "
                    + "transport frames each body."
            case .bodyDataInGETRequest(let body):
                return "The GET (or HEAD) request has a body (\(body.count) bytes in memory, or a file), which this session's transport "
                    + "cannot send, so it was not sent. Send the parameters in the query (URLEncoding.queryString), use "
                    + "another method, or a transport whose supportsBodyInGETRequests is true (AsyncHTTPClientTransport)."
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
