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
enum ResponseHeadRules {
    /// Why `response`, answering `request`, is refused, or `nil` when it is not.
    static func violation(in response: HTTPURLResponse, answering request: URLRequest?) -> String? {
        if let framing = ResponseFraming.violation(in: response) { return framing }
        if response.statusCode == 101, request?.value(forHTTPHeaderField: "Upgrade") == nil {
            return "The server switched protocols (101) though the request did not ask to upgrade."
        }
        // corelibs joins repeated fields with ", ": one value either way.
        if let coding = response.value(forHTTPHeaderField: "Transfer-Encoding"), !TransferCoding.isChunkedAlone([coding]) {
            return "The response's Transfer-Encoding \(String(coding.prefix(64)).debugDescription) is not chunked alone."
        }
        // corelibs keeps the fields as strings; its public view boxes them.
        for (key, value) in response.allHeaderFields {
            guard let name = key.base as? String, let text = value as? String else { continue }
            if let offender = name.utf8.first(where: isControl) ?? text.utf8.first(where: isControl) {
                return "The response's field \(String(name.prefix(64)).debugDescription) holds the control character "
                    + "0x\(String(offender, radix: 16, uppercase: true)), which a field may not."
            }
        }
        return nil
    }

    /// A control character other than HTAB, which a field may hold.
    private static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }
}
