import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``URLSessionTransport`` refuses in a response head before any of its
/// body is delivered, so that a head AsyncHTTPClient's parser (or transport)
/// refuses is refused here too: ambiguous framing (``ResponseFraming``), a
/// control character in a field, a `101 Switching Protocols` that nothing
/// asked for, and a transfer coding other than `chunked` alone
/// (``TransferCoding``: what libcurl does with one depends on its version).
///
/// libcurl passes a bare CR, a NUL's neighbours and other control characters
/// of a field value on to the application (RFC 9112 §5.5 says to refuse or
/// replace them: a CR that reaches a log or another protocol splits a line).
/// And it takes an unsolicited `101` for the final response and hands over
/// whatever follows it — another protocol's bytes, or a whole smuggled
/// response — as its body.
///
/// Every field is read once, in one pass over `allHeaderFields` (the only
/// way to see them all), and the head handed on carries what was read:
/// asking corelibs for one field lowercases every name of the head.
enum ResponseHeadRules {
    /// What reading a head gave.
    enum Reading {
        /// The head, with its fields as read.
        case accepted(ResponseHead)
        /// Why the head is refused.
        case refused(String)
    }

    /// `response`, answering `request`, as a head with its fields read once,
    /// or why it is refused. (`request` is read only for a `101`: corelibs
    /// copies a task's request each time it is asked for.)
    static func read(_ response: HTTPURLResponse, answering request: @autoclosure () -> URLRequest?) -> Reading {
        // corelibs keeps the fields as strings, one per name (repeated ones
        // joined with ", "); its public view boxes them.
        let all = response.allHeaderFields
        var fields: [HTTPHeader] = []
        fields.reserveCapacity(all.count)
        var contentLength: String?, transferEncoding: String?, control: String?
        for (key, value) in all {
            guard let name = key.base as? String, let text = value as? String else { continue }
            if control == nil, let offender = name.utf8.first(where: isControl) ?? text.utf8.first(where: isControl) {
                control = "The response's field \(String(name.prefix(64)).debugDescription) holds the control character "
                    + "0x\(String(offender, radix: 16, uppercase: true)), which a field may not."
            }
            // Two spellings of one name, should corelibs keep both, read as a list.
            if HTTPHeaders.namesMatch(name, "Content-Length") {
                contentLength = contentLength.map { "\($0), \(text)" } ?? text
            } else if HTTPHeaders.namesMatch(name, "Transfer-Encoding") {
                transferEncoding = transferEncoding.map { "\($0), \(text)" } ?? text
            }
            fields.append(HTTPHeader(name: name, value: text))
        }
        if let framing = ResponseFraming.violation(contentLength: contentLength, transferEncoding: transferEncoding) {
            return .refused(framing)
        }
        if response.statusCode == 101, request()?.value(forHTTPHeaderField: "Upgrade") == nil {
            return .refused("The server switched protocols (101) though the request did not ask to upgrade.")
        }
        if let coding = transferEncoding, !TransferCoding.isChunkedAlone([coding]) {
            return .refused("The response's Transfer-Encoding \(String(coding.prefix(64)).debugDescription) is not chunked alone.")
        }
        if let control { return .refused(control) }
        return .accepted(ResponseHead(response, fields: HTTPHeaders(keepingDuplicates: fields)))
    }

    /// A control character other than HTAB, which a field may hold.
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
