/// The one transfer coding a response may declare: `chunked`, alone.
///
/// A transport hands over bodies with their transfer coding undone, and
/// `chunked` is the only one HTTP/1.1 parsers undo everywhere. A response
/// that declares anything else — another coding before or after it, a
/// repeated `chunked`, an empty item (`chunked,`), a tab after it — must be
/// refused as malformed (`URLError.badServerResponse`): SwiftNIO's parser,
/// for one, then reads the body up to the close, chunk framing and whatever
/// it smuggles included, and AsyncHTTPClient hands that over as the body.
public enum TransferCoding {
    /// Whether `fields`, the values of a response's `Transfer-Encoding`
    /// fields in order, declare `chunked` alone (any case; spaces around it).
    /// `true` for no field at all.
    public static func isChunkedAlone(_ fields: [String]) -> Bool {
        guard let field = fields.first else { return true }
        guard fields.count == 1 else { return false }
        var value = Substring(field)
        while let first = value.first, first == " " || first == "\t" { value.removeFirst() }
        while value.last == " " { value.removeLast() }
        return value.lowercased() == "chunked"
    }
}
