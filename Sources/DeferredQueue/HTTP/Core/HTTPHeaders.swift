import Foundation

/// One HTTP header field: a name and a value.
public struct HTTPHeader: Sendable, Hashable, CustomStringConvertible {
    /// The field name as given, e.g. `"Content-Type"`. Names compare case-insensitively in
    /// ``HTTPHeaders``.
    public let name: String
    /// The field value, e.g. `"application/json"`.
    public let value: String

    /// Creates a header field.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `"Name: value"`; the value of an `Authorization`, `Proxy-Authorization`,
    /// `Cookie` or `Set-Cookie` field reads `***` (a scheme such as `Bearer`
    /// stays), so headers can be logged. ``value`` holds the real value.
    public var description: String {
        "\(name): \(Redaction.headerValue(named: name, value))"
    }

    /// A `User-Agent` field.
    ///
    /// - Parameter value: The product tokens, e.g. `"HTTPDemo/1.0"`.
    /// - Returns: The field.
    public static func userAgent(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "User-Agent", value: value)
    }

    /// An `Accept` field.
    ///
    /// - Parameter value: The acceptable media types, e.g. `"application/json"`.
    /// - Returns: The field.
    public static func accept(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept", value: value)
    }

    /// A `Content-Type` field.
    ///
    /// - Parameter value: The body's media type, e.g. `"application/json"`.
    /// - Returns: The field.
    public static func contentType(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Type", value: value)
    }

    /// An `Authorization: Bearer …` field.
    ///
    /// - Parameter bearerToken: The token.
    /// - Returns: The field.
    public static func authorization(bearerToken: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: "Bearer \(bearerToken)")
    }

    /// An `Authorization: Basic …` field (RFC 7617).
    ///
    /// - Parameters:
    ///   - username: The user name (must not contain `:`).
    ///   - password: The password.
    /// - Returns: The field.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        let credential = Data("\(username):\(password)".utf8).base64EncodedString()
        return HTTPHeader(name: "Authorization", value: "Basic \(credential)")
    }
}

/// An ordered list of HTTP header fields whose names compare case-insensitively.
///
/// Fields keep the order in which they were added, and the casing each name was given.
/// Reading by name (`headers["content-type"]`) finds `Content-Type` too.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers.update(.userAgent("HTTPDemo/1.0"))
/// headers["accept"]            // "application/json"
/// headers["X-Trace"] = "abc"   // appends
/// headers["ACCEPT"] = nil      // removes
/// ```
///
/// - Note: As in Alamofire, a name occurs once: ``add(name:value:)``, ``update(name:value:)``,
///   the subscript setter and the initialisers replace an earlier field of the same name
///   (any casing). A response head keeps repeated fields (`Set-Cookie`) apart:
///   ``init(keepingDuplicates:)`` and ``append(_:)`` make such a list, and reading a
///   repeated name joins its values with `", "` (RFC 9110 §5.3).
public struct HTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral,
    Collection, CustomStringConvertible
{
    private var fields: [HTTPHeader] = []

    /// Creates an empty list.
    public init() {}

    /// Creates a list of `headers` in order; a repeated name (any casing)
    /// keeps its first position and its last value, as in Alamofire.
    ///
    /// - Parameter headers: The fields.
    public init(_ headers: [HTTPHeader]) {
        fields = Self.deduplicated(headers)
    }

    /// Creates a list holding `headers` in order, repeated names included —
    /// a response head as received (each `Set-Cookie` apart).
    ///
    /// - Parameter headers: The fields.
    public init(keepingDuplicates headers: [HTTPHeader]) {
        fields = headers
    }

    /// Creates a list from a dictionary, sorted by name (dictionaries have no order).
    ///
    /// - Parameter dictionary: Names and values.
    public init(_ dictionary: [String: String]) {
        fields = Self.deduplicated(dictionary.sorted(by: { $0.key < $1.key }).map { HTTPHeader(name: $0.key, value: $0.value) })
    }

    /// Creates a list from a dictionary literal, in literal order; a repeated name
    /// (in any casing) keeps its last value.
    ///
    /// - Parameter elements: Names and values.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = Self.deduplicated(elements.map { HTTPHeader(name: $0.0, value: $0.1) })
    }

    /// Creates a list from an array literal of fields, in order; a repeated
    /// name keeps its first position and its last value (``init(_:)-([HTTPHeader])``).
    ///
    /// - Parameter elements: The fields.
    public init(arrayLiteral elements: HTTPHeader...) {
        self.init(elements)
    }

    /// The value for `name` (any casing): `nil` when absent, the values joined with `", "`
    /// when the name occurs more than once. Setting a value replaces every field of that
    /// name (see ``update(name:value:)``); setting `nil` removes them.
    ///
    /// - Parameter name: The field name.
    public subscript(name: String) -> String? {
        get {
            // No array for the usual single field: heads are read this way on
            // every request. Repeats are joined once, not one by one (a
            // string copied for each of thousands of fields).
            var first: String?
            var more: [String] = []
            for field in fields where Self.namesMatch(field.name, name) {
                if first == nil { first = field.value } else { more.append(field.value) }
            }
            guard let first, !more.isEmpty else { return first }
            return ([first] + more).joined(separator: ", ")
        }
        set {
            if let newValue {
                update(name: name, value: newValue)
            } else {
                remove(name: name)
            }
        }
    }

    /// Every value given for `name` (any casing), in order.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The values; empty when the name is absent.
    public func values(for name: String) -> [String] {
        fields.filter { Self.namesMatch($0.name, name) }.map(\.value)
    }

    /// Sets the value for `name`, as ``update(name:value:)`` does (Alamofire's
    /// `add`): an earlier field of that name is replaced, never doubled.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    public mutating func add(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Sets a field, as ``update(_:)`` does (Alamofire's `add`).
    ///
    /// - Parameter header: The field.
    public mutating func add(_ header: HTTPHeader) {
        update(header)
    }

    /// Appends a field, keeping any earlier field of the same name: for a
    /// field that may repeat (a response's `Set-Cookie`).
    ///
    /// - Parameter header: The field.
    public mutating func append(_ header: HTTPHeader) {
        fields.append(header)
    }

    /// Sets the value for `name`: replaces the first field of that name in place (taking the
    /// new casing) and drops the others, or appends when there is none.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    public mutating func update(name: String, value: String) {
        update(HTTPHeader(name: name, value: value))
    }

    /// Sets a field: replaces the first field of its name in place and drops the others, or
    /// appends when there is none.
    ///
    /// - Parameter header: The field.
    public mutating func update(_ header: HTTPHeader) {
        guard let first = fields.firstIndex(where: { Self.namesMatch($0.name, header.name) }) else {
            fields.append(header)
            return
        }
        fields[first] = header
        var position = fields.index(after: first)
        while position < fields.endIndex {
            if Self.namesMatch(fields[position].name, header.name) {
                fields.remove(at: position)
            } else {
                position += 1
            }
        }
    }

    /// Removes every field named `name` (any casing).
    ///
    /// - Parameter name: The field name.
    public mutating func remove(name: String) {
        fields.removeAll { Self.namesMatch($0.name, name) }
    }

    /// A copy in which the fields of `other` replace every field of the same names; they
    /// come after the fields that remain.
    ///
    /// - Parameter other: The fields that win.
    /// - Returns: The merged list.
    public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        merged.fields.removeAll { field in other.fields.contains { Self.namesMatch($0.name, field.name) } }
        merged.fields.append(contentsOf: other.fields)
        return merged
    }

    /// The fields as a dictionary, keyed by each name's first casing, repeated names'
    /// values joined with `", "` — the shape `URLRequest.allHTTPHeaderFields` expects.
    public var dictionary: [String: String] {
        // One pass, by folded name: a server chooses how many fields a head
        // has (tens of thousands fit), and looking each up among the names
        // so far took time quadratic in their number.
        var positions: [String: Int] = [:]
        var entries: [(name: String, values: [String])] = []
        for field in fields {
            let key = Self.folded(field.name)
            if let position = positions[key] {
                entries[position].values.append(field.value)
            } else {
                positions[key] = entries.count
                entries.append((field.name, [field.value]))
            }
        }
        var result = [String: String](minimumCapacity: entries.count)
        for entry in entries {
            result[entry.name] = entry.values.count == 1 ? entry.values[0] : entry.values.joined(separator: ", ")
        }
        return result
    }

    /// The number of fields, duplicates included.
    public var count: Int {
        fields.count
    }

    /// Whether there are no fields.
    public var isEmpty: Bool {
        fields.isEmpty
    }

    /// Iterates over the fields in order.
    ///
    /// - Returns: An iterator over the fields.
    public func makeIterator() -> IndexingIterator<[HTTPHeader]> {
        fields.makeIterator()
    }

    /// The position of the first field (0), as in Alamofire's `Collection`.
    public var startIndex: Int { fields.startIndex }

    /// The position past the last field.
    public var endIndex: Int { fields.endIndex }

    /// The field at `position`, in insertion order.
    ///
    /// - Parameter position: A valid index.
    public subscript(position: Int) -> HTTPHeader { fields[position] }

    /// The position after `i`.
    ///
    /// - Parameter i: A valid index.
    /// - Returns: `i + 1`.
    public func index(after i: Int) -> Int { fields.index(after: i) }

    /// One `"Name: value"` line per field, secret values hidden as in
    /// ``HTTPHeader/description``.
    public var description: String {
        fields.map(\.description).joined(separator: "\n")
    }

    /// Whether both lists hold the same fields in the same order; names compare
    /// case-insensitively, values exactly.
    ///
    /// - Parameters:
    ///   - lhs: A list.
    ///   - rhs: Another list.
    /// - Returns: Whether they are equal.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { namesMatch($0.name, $1.name) && $0.value == $1.value }
    }

    /// ASCII case-insensitive comparison, without allocating (field names are ASCII tokens).
    /// `name` with its ASCII letters in lower case: names match
    /// (``namesMatch(_:_:)``) exactly when they fold to the same string.
    static func folded(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return name }
        return String(decoding: name.utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// `headers` with each name (any casing) once: at its first position,
    /// as its last field (name and value) has it, as ``update(_:)`` leaves
    /// them — in one pass, where an update per field scans the list.
    static func deduplicated(_ headers: [HTTPHeader]) -> [HTTPHeader] {
        var positions: [String: Int] = [:]
        var result: [HTTPHeader] = []
        result.reserveCapacity(headers.count)
        for header in headers {
            let key = folded(header.name)
            if let position = positions[key] {
                result[position] = header
            } else {
                positions[key] = result.count
                result.append(header)
            }
        }
        return result
    }

    static func namesMatch(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count
            && zip(lhs.utf8, rhs.utf8).allSatisfy { a, b in
                a == b || (a | 0x20 == b | 0x20 && (a | 0x20) &- UInt8(ascii: "a") < 26)
            }
    }
}

extension HTTPHeaders {
    /// A list holding one `User-Agent` field.
    ///
    /// - Parameter value: The product tokens, e.g. `"HTTPDemo/1.0"`.
    /// - Returns: The list.
    public static func userAgent(_ value: String) -> HTTPHeaders {
        [.userAgent(value)]
    }

    /// A list holding one `Accept` field.
    ///
    /// - Parameter value: The acceptable media types.
    /// - Returns: The list.
    public static func accept(_ value: String) -> HTTPHeaders {
        [.accept(value)]
    }

    /// A list holding one `Content-Type` field.
    ///
    /// - Parameter value: The body's media type.
    /// - Returns: The list.
    public static func contentType(_ value: String) -> HTTPHeaders {
        [.contentType(value)]
    }

    /// A list holding one `Authorization: Bearer …` field.
    ///
    /// - Parameter bearerToken: The token.
    /// - Returns: The list.
    public static func authorization(bearerToken: String) -> HTTPHeaders {
        [.authorization(bearerToken: bearerToken)]
    }
}
