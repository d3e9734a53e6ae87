/// Flattens a ``FormNode`` tree into `key=value` pairs joined by `&`, percent-escaping
/// keys and values (RFC 3986: unreserved characters, `?` and `/` pass; every other byte of
/// the UTF-8 form becomes `%XX`).
struct FormSerializer {
    let arrayEncoding: URLEncodedFormEncoder.ArrayEncoding
    let spaceEncoding: URLEncodedFormEncoder.SpaceEncoding
    let alphabetizeKeyValuePairs: Bool

    /// The form for a root map node.
    func serialize(_ root: FormNode) -> String {
        var pairs: [String] = []
        appendMembers(of: root, under: nil, to: &pairs)
        return pairs.joined(separator: "&")
    }

    /// Appends the pairs of `node`, whose (escaped) key path is `path`.
    private func append(_ node: FormNode, at path: String, to pairs: inout [String]) {
        switch node.shape {
        case .unset, .null:
            return
        case .scalar(let text):
            pairs.append(path + "=" + escape(text))
        case .list:
            for (index, element) in node.elements.enumerated() {
                switch arrayEncoding {
                case .brackets: append(element, at: path + "[]", to: &pairs)
                case .noBrackets: append(element, at: path, to: &pairs)
                case .indexInBrackets: append(element, at: path + "[\(index)]", to: &pairs)
                }
            }
        case .map:
            appendMembers(of: node, under: path, to: &pairs)
        }
    }

    /// Appends the members of a map node; `path` is `nil` at the root, where members are
    /// not wrapped in brackets.
    private func appendMembers(of node: FormNode, under path: String?, to pairs: inout [String]) {
        var members = node.entries.enumerated().map { (key: escape($0.element.key), order: $0.offset, node: $0.element.node) }
        if alphabetizeKeyValuePairs {
            // Stable: members with equal keys keep the order they were encoded in.
            members.sort { $0.key != $1.key ? $0.key < $1.key : $0.order < $1.order }
        }
        for member in members {
            append(member.node, at: path.map { "\($0)[\(member.key)]" } ?? member.key, to: &pairs)
        }
    }

    /// Percent-escapes `text` for a form key or value.
    func escape(_ text: String) -> String {
        Self.escape(text, plusForSpace: spaceEncoding == .plusReplaced)
    }

    /// Percent-escapes `text` for a form or query key or value: unreserved
    /// characters, `?` and `/` pass; a space becomes `+` when `plusForSpace`.
    static func escape(_ text: String, plusForSpace: Bool) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { !passesUnescaped($0) }) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if passesUnescaped(byte) {
                bytes.append(byte)
            } else if byte == UInt8(ascii: " "), plusForSpace {
                bytes.append(UInt8(ascii: "+"))
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Unreserved characters (RFC 3986 §2.3) plus `?` and `/`, which RFC 3986 §3.4 allows in
    /// a query and which read better unescaped.
    private static func passesUnescaped(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "?"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}
