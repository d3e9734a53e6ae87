/// A JSON value: the six kinds of RFC 8259, as an immutable, `Sendable` value type.
///
/// `JSON` is what `DataRequest.responseJSON` hands you. Reading
/// it never traps: the subscripts return ``JSON/null`` for a missing key, an index out of
/// range or a value of the wrong kind, and the typed accessors return `nil`, so lookups
/// chain safely.
///
/// ```swift
/// let entry: JSON = try JSON(parsing: #"{"title": "Swift", "count": 42, "tags": ["a"]}"#)
/// entry["title"].string        // "Swift"
/// entry["count"].int           // 42
/// entry["tags"][0].string      // "a"
/// entry["missing"]["deep"]     // .null
/// ```
///
/// Booleans and numbers are distinct kinds: `true` is never `1`. Every number is stored
/// as a `Double`, so integers are exact up to 2^53.
///
/// - Note: Equality compares numbers as `Double`s and objects as unordered dictionaries.
public enum JSON: Sendable, Equatable, Hashable {
    /// The literal `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, stored as a `Double` (integers are exact up to 2^53).
    case number(Double)
    /// A string.
    case string(String)
    /// An ordered list of values.
    case array([JSON])
    /// An unordered set of named values. Parsing keeps the last of duplicate names.
    case object([String: JSON])
}

// MARK: - Subscripts

extension JSON {
    /// The value for `key` in an object, or ``JSON/null`` when this is not an object or
    /// has no such key.
    ///
    /// - Parameter key: The member name.
    /// - Returns: The member's value, or `.null`.
    public subscript(key: String) -> JSON {
        guard case .object(let members) = self else { return .null }
        return members[key] ?? .null
    }

    /// The element at `index` in an array, or ``JSON/null`` when this is not an array or
    /// `index` is out of range (negative indices included).
    ///
    /// - Parameter index: A zero-based position.
    /// - Returns: The element, or `.null`.
    public subscript(index: Int) -> JSON {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return .null }
        return elements[index]
    }
}

// MARK: - Typed accessors

extension JSON {
    /// The string, when this is a ``JSON/string(_:)``; otherwise `nil`.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number as an `Int`, when this is a ``JSON/number(_:)`` that is integral and fits
    /// in `Int`; otherwise `nil` (`1.5`, `1e300` and `true` all give `nil`).
    public var int: Int? {
        if case .number(let value) = self { return Int(exactly: value) }
        return nil
    }

    /// The number, when this is a ``JSON/number(_:)``; otherwise `nil`.
    public var double: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The Boolean, when this is a ``JSON/bool(_:)``; otherwise `nil` (numbers are not
    /// Booleans).
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an ``JSON/array(_:)``; otherwise `nil`.
    public var array: [JSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an ``JSON/object(_:)``; otherwise `nil`.
    public var object: [String: JSON]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is ``JSON/null``. (A missing key also reads as `.null`.)
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

// MARK: - Literals

extension JSON: ExpressibleByNilLiteral {
    /// Creates ``JSON/null`` from `nil`.
    ///
    /// - Parameter nilLiteral: The `nil` literal.
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension JSON: ExpressibleByBooleanLiteral {
    /// Creates a ``JSON/bool(_:)`` from `true` or `false`.
    ///
    /// - Parameter value: The Boolean literal.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSON: ExpressibleByIntegerLiteral {
    /// Creates a ``JSON/number(_:)`` from an integer literal.
    ///
    /// - Parameter value: The integer literal.
    public init(integerLiteral value: Int) {
        self = .number(Double(value))
    }
}

extension JSON: ExpressibleByFloatLiteral {
    /// Creates a ``JSON/number(_:)`` from a floating-point literal.
    ///
    /// - Parameter value: The floating-point literal.
    public init(floatLiteral value: Double) {
        self = .number(value)
    }
}

extension JSON: ExpressibleByStringLiteral {
    /// Creates a ``JSON/string(_:)`` from a string literal.
    ///
    /// - Parameter value: The string literal.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSON: ExpressibleByArrayLiteral {
    /// Creates a ``JSON/array(_:)`` from an array literal.
    ///
    /// - Parameter elements: The elements, in order.
    public init(arrayLiteral elements: JSON...) {
        self = .array(elements)
    }
}

extension JSON: ExpressibleByDictionaryLiteral {
    /// Creates a ``JSON/object(_:)`` from a dictionary literal.
    ///
    /// - Parameter elements: The members. A repeated name keeps its last value.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

// MARK: - Text

extension JSON: CustomStringConvertible {
    /// The value as compact JSON text with sorted keys, e.g. `{"a":[1,true,null]}`.
    public var description: String {
        encoded(prettyPrinted: false, sortedKeys: true)
    }
}
