import DeferredQueue
import Foundation
import NIOHTTP1

/// What the transport refuses in a response head that AsyncHTTPClient's
/// parser lets through, before any of the body is delivered.
///
/// AsyncHTTPClient undoes the `chunked` transfer coding and nothing else: a
/// `Transfer-Encoding: gzip, chunked` body reached the application still
/// compressed (a bomb as its compressed bytes), and an unknown coding as the
/// raw bytes up to the close (``TransferCoding``). And it takes an unsolicited
/// `101 Switching Protocols` for a final response. URLSession's transport
/// refuses the same 101 (`ResponseHeadRules`).
enum HeadRefusal {
    /// Why `head` is refused, or `nil` when it is not.
    ///
    /// - Parameter asksToUpgrade: Whether the request sent an `Upgrade` field.
    static func reason(for head: HTTPResponseHead, asksToUpgrade: Bool) -> String? {
        if head.status == .switchingProtocols, !asksToUpgrade {
            return "The server switched protocols (101) though the request did not ask to upgrade."
        }
        guard head.headers.contains(name: "transfer-encoding") else { return nil }
        let fields = head.headers["transfer-encoding"]
        guard TransferCoding.isChunkedAlone(fields) else {
            let declared = fields.joined(separator: ", ")
            return "The response's Transfer-Encoding \(String(declared.prefix(64)).debugDescription) is not chunked alone, "
                + "the only transfer coding this transport undoes."
        }
        return nil
    }
}
