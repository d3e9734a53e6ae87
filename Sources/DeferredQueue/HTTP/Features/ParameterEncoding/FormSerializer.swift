import Foundation

/// Flattens a ``FormNode`` tree into `key=value` pairs joined by `&`, as Alamofire's
/// encoder does: each key path is built whole (`a[b][]`), then it and the value are
/// percent-escaped (RFC 3986: unreserved characters, `?` and `/` pass; every other byte of
/// the UTF-8 form becomes `%XX`). A map's members are sorted by what they serialize to;
/// a list's elements keep their order.
struct FormSerializer {
    let options: URLEncodedFormEncoder

    /// The form for a root map node.
    func serialize(_ root: FormNode) -> String {
        members(of: root, under: nil).joined(separator: "&")
    }

    /// The pairs of `node`, whose (unescaped) key path is `path`, joined by `&`; empty when
    /// it has none.
    private func serialize(_ node: FormNode, at path: String) -> String {
        switch node.shape {
        case .unset:
            return ""
        case .null:
            guard let text = options.nilEncoding.encodeNil() else { return "" }
            return escape(path) + "=" + escape(text)
        case .scalar(let text):
            return escape(path) + "=" + escape(text)
        case .list:
            return node.elements.enumerated()
                .map { serialize($0.element, at: options.arrayEncoding.encode(path, atIndex: $0.offset)) }
                .filter { !$0.isEmpty }
                .joined(separator: "&")
        case .map:
            return members(of: node, under: path).joined(separator: "&")
        }
    }

    /// The serialized members of a map node, sorted when alphabetizing (a stable sort);
    /// `path` is `nil` at the root, whose members' keys are not joined to a parent's.
    private func members(of node: FormNode, under path: String?) -> [String] {
        let members = node.entries.map { entry in
            serialize(entry.node, at: path.map { $0 + options.keyPathEncoding.encodeKeyPath(entry.key) } ?? entry.key)
        }.filter { !$0.isEmpty }
        guard options.alphabetizeKeyValuePairs else { return members }
        return members.enumerated().sorted { $0.element != $1.element ? $0.element < $1.element : $0.offset < $1.offset }.map(\.element)
    }

    /// Percent-escapes `text` for a form key or value.
    func escape(_ text: String) -> String {
        let plusForSpace = options.spaceEncoding == .plusReplaced
        guard !options.escapesAsDefault else { return Self.escape(text, plusForSpace: plusForSpace) }
        let escaped = text.addingPercentEncoding(withAllowedCharacters: options.allowedCharacters.union(CharacterSet(charactersIn: " "))) ?? text
        return escaped.replacingOccurrences(of: " ", with: plusForSpace ? "+" : "%20")
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
