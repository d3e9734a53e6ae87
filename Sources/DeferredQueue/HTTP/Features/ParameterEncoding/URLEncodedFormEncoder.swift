import Foundation

/// Encodes any `Encodable` struct, class or `[String: …]` dictionary as URL-encoded form
/// data: `key=value` pairs joined by `&`, the form that ``URLEncodedFormParameterEncoder``
/// puts into queries and bodies.
///
/// Nested values use brackets: a member `b` of an object `a` is `a[b]=…` (see
/// ``KeyPathEncoding``), an array `a` is `a[]=1&a[]=2` (see ``ArrayEncoding``). Members are
/// sorted at every level, so equal values give equal strings; array elements keep their
/// order. Keys and values are percent-escaped per RFC 3986, as Alamofire escapes them:
/// letters, digits, `-._~`, `?` and `/` pass as they are (``allowedCharacters``);
/// everything else, including `:#[]@!$&'()*+,;=` — the brackets of the key path too — and
/// every non-ASCII byte of the UTF-8 form, becomes `%XX` (a space is `%20`, or `+` with
/// ``SpaceEncoding/plusReplaced``). `nil` values are left out (see ``NilEncoding``).
///
/// ```swift
/// struct Query: Encodable {
///     let foo = "bar"
///     let baz = ["a", "b"]
///     let qux = ["x": 1, "y": 2, "z": 3]
///     let note: String? = nil
/// }
/// let form: String = try URLEncodedFormEncoder().encode(Query())
/// // "baz%5B%5D=a&baz%5B%5D=b&foo=bar&qux%5Bx%5D=1&qux%5By%5D=2&qux%5Bz%5D=3"
/// ```
///
/// The encoder is immutable, so one instance can be shared by any number of threads.
public final class URLEncodedFormEncoder: Sendable {
    /// Whether key-value pairs are sorted by key at every level (a stable sort, so the
    /// elements of an array keep their order). `false` keeps the order the value encodes
    /// its members in, which for a `Dictionary` changes from run to run.
    public let alphabetizeKeyValuePairs: Bool
    /// How arrays are written.
    public let arrayEncoding: ArrayEncoding
    /// How `Bool`s are written.
    public let boolEncoding: BoolEncoding
    /// How `Data` is written.
    public let dataEncoding: DataEncoding
    /// How `Date`s are written.
    public let dateEncoding: DateEncoding
    /// How coding keys are turned into form keys.
    public let keyEncoding: KeyEncoding
    /// How a nested member's key is joined to its parent's.
    public let keyPathEncoding: KeyPathEncoding
    /// How `nil` values are written.
    public let nilEncoding: NilEncoding
    /// How spaces are escaped.
    public let spaceEncoding: SpaceEncoding
    /// The characters keys and values keep unescaped (a space aside: see ``spaceEncoding``).
    public let allowedCharacters: CharacterSet

    /// Creates an encoder.
    ///
    /// ```swift
    /// struct Post: Encodable { let tags = ["a", "b"]; let draft = false }
    ///
    /// let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, boolEncoding: .literal)
    /// let form: String = try encoder.encode(Post())
    /// // "draft=false&tags=a&tags=b"
    /// ```
    ///
    /// - Parameters:
    ///   - alphabetizeKeyValuePairs: Whether pairs are sorted by key. Defaults to `true`.
    ///   - arrayEncoding: How arrays are written. Defaults to ``ArrayEncoding/brackets``.
    ///   - boolEncoding: How `Bool`s are written. Defaults to ``BoolEncoding/numeric``.
    ///   - dataEncoding: How `Data` is written. Defaults to ``DataEncoding/base64``.
    ///   - dateEncoding: How `Date`s are written. Defaults to ``DateEncoding/deferredToDate``.
    ///   - keyEncoding: How keys are written. Defaults to ``KeyEncoding/useDefaultKeys``.
    ///   - keyPathEncoding: How nested keys are joined. Defaults to ``KeyPathEncoding/brackets``.
    ///   - nilEncoding: How `nil` is written. Defaults to ``NilEncoding/dropKey``.
    ///   - spaceEncoding: How spaces are escaped. Defaults to ``SpaceEncoding/percentEscaped``.
    ///   - allowedCharacters: What stays unescaped. Defaults to `CharacterSet.afURLQueryAllowed`.
    public init(alphabetizeKeyValuePairs: Bool = true,
                arrayEncoding: ArrayEncoding = .brackets,
                boolEncoding: BoolEncoding = .numeric,
                dataEncoding: DataEncoding = .base64,
                dateEncoding: DateEncoding = .deferredToDate,
                keyEncoding: KeyEncoding = .useDefaultKeys,
                keyPathEncoding: KeyPathEncoding = .brackets,
                nilEncoding: NilEncoding = .dropKey,
                spaceEncoding: SpaceEncoding = .percentEscaped,
                allowedCharacters: CharacterSet = .afURLQueryAllowed) {
        self.alphabetizeKeyValuePairs = alphabetizeKeyValuePairs
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.dataEncoding = dataEncoding
        self.dateEncoding = dateEncoding
        self.keyEncoding = keyEncoding
        self.keyPathEncoding = keyPathEncoding
        self.nilEncoding = nilEncoding
        self.spaceEncoding = spaceEncoding
        self.allowedCharacters = allowedCharacters
        escapesAsDefault = allowedCharacters == .afURLQueryAllowed
    }

    /// Whether ``allowedCharacters`` is the default, which a faster escaper handles.
    let escapesAsDefault: Bool

    /// Encodes `value` as a URL-encoded form string.
    ///
    /// - Parameter value: A value that encodes into a keyed container: a struct, a class
    ///   or a dictionary with `String` keys.
    /// - Returns: The form, e.g. `"a=1&b%5B%5D=x&b%5B%5D=y"`; empty when `value` has no
    ///   members.
    /// - Throws: `EncodingError.invalidValue` when the top-level value is an array or a
    ///   single value, or when an `encode(to:)` misuses the encoder (asks one value for two
    ///   kinds of container); any error thrown by a custom date, data or `encode(to:)`
    ///   implementation, as it is.
    public func encode<Value: Encodable>(_ value: Value) throws -> String {
        let root = FormNode()
        let context = FormEncodingContext()
        try FormWriter(options: self, context: context).encode(value, into: root, at: [])
        if let misuse = context.misuse { throw misuse }
        switch root.shape {
        case .map, .unset, .null:
            break
        case .scalar, .list:
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [],
                debugDescription: "the top-level value must be a struct, class or [String: …] dictionary, "
                    + "but \(Value.self) encodes as \(root.shapeName)"))
        }
        let serializer = FormSerializer(options: self)
        return serializer.serialize(root)
    }

    /// Encodes `value` as URL-encoded form data: the UTF-8 bytes of ``encode(_:)->String``.
    ///
    /// - Parameter value: A value that encodes into a keyed container.
    /// - Returns: The form's UTF-8 bytes.
    /// - Throws: The same errors as the `String` variant.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let form: String = try encode(value)
        return Data(form.utf8)
    }

    /// The form text of a value the options write as a scalar, or `nil` when the value
    /// encodes itself through `encode(to:)`.
    func text<T: Encodable>(for value: T) throws -> String? {
        switch value {
        case let string as String: return string
        case let bool as Bool: return boolEncoding.text(for: bool)
        case let integer as any BinaryInteger: return String(describing: integer)
        case let double as Double: return String(describing: double)
        case let float as Float: return String(describing: float)
        case let decimal as Decimal: return decimal.description
        case let date as Date: return try dateEncoding.text(for: date)
        case let data as Data: return try dataEncoding.text(for: data)
        case let url as URL: return url.absoluteString
        default: return nil
        }
    }
}
