import Foundation

extension URLEncodedFormEncoder {
    /// How arrays are written. No standard covers arrays in forms; pick what the server reads.
    public enum ArrayEncoding: Sendable {
        /// `[]` after the key for every element: `a[]=1&a[]=2` (PHP, Rails). The default.
        case brackets
        /// The key repeated as it is: `a=1&a=2` (Go, Java servlets, Python).
        case noBrackets
        /// The element's index in brackets: `a[0]=1&a[1]=2`. A `nil` element is left out, and
        /// the elements after it keep their positions.
        case indexInBrackets
        /// The closure's key for the element at `index` of the array under `key`.
        case custom(@Sendable (_ key: String, _ index: Int) -> String)

        /// The key of the element at `index` of the array under `key`, before escaping.
        func encode(_ key: String, atIndex index: Int) -> String {
            switch self {
            case .brackets: return key + "[]"
            case .noBrackets: return key
            case .indexInBrackets: return key + "[\(index)]"
            case .custom(let encode): return encode(key, index)
            }
        }
    }

    /// How the key of a nested member is joined to its parent's: `parent[child]` (the
    /// default) or `parent.child`.
    public struct KeyPathEncoding: Sendable {
        /// `parent[child][grandchild]`. The default.
        public static let brackets = KeyPathEncoding { "[\($0)]" }
        /// `parent.child.grandchild`.
        public static let dots = KeyPathEncoding { ".\($0)" }

        private let encoding: @Sendable (_ subkey: String) -> String

        /// Joins each member's key to its parent's with what `encoding` makes of it.
        public init(encoding: @escaping @Sendable (_ subkey: String) -> String) {
            self.encoding = encoding
        }

        /// What follows the parent's key for the member `subkey`, before escaping.
        func encodeKeyPath(_ subkey: String) -> String {
            encoding(subkey)
        }
    }

    /// How a `nil` value is written: left out with its key (the default), as an empty
    /// value, or as `null`.
    public struct NilEncoding: Sendable {
        /// `nil` values and their keys are left out. The default.
        public static let dropKey = NilEncoding { nil }
        /// The key with an empty value: `a=1&none=&b=2`.
        public static let dropValue = NilEncoding { "" }
        /// The key with `null`: `none=null`.
        public static let null = NilEncoding { "null" }

        private let encoding: @Sendable () -> String?

        /// Writes `nil` as what `encoding` returns; `nil` leaves the key out.
        public init(encoding: @escaping @Sendable () -> String?) {
            self.encoding = encoding
        }

        /// The text of a `nil` value, or `nil` to leave its key out.
        func encodeNil() -> String? {
            encoding()
        }
    }

    /// How `Bool`s are written.
    public enum BoolEncoding: Sendable, Hashable {
        /// `1` and `0`. The default.
        case numeric
        /// `true` and `false`.
        case literal

        func text(for value: Bool) -> String {
            switch self {
            case .numeric: return value ? "1" : "0"
            case .literal: return value ? "true" : "false"
            }
        }
    }

    /// How `Data` is written.
    public enum DataEncoding: Sendable {
        /// `Data`'s own `Encodable` conformance: an array of bytes, `d[]=1&d[]=2`.
        case deferredToData
        /// Base64 text (escaped, so `=` padding is `%3D`). The default.
        case base64
        /// The closure's result. An error it throws ends the encoding.
        case custom(@Sendable (Data) throws -> String)

        func text(for data: Data) throws -> String? {
            switch self {
            case .deferredToData: return nil
            case .base64: return data.base64EncodedString()
            case .custom(let encode): return try encode(data)
            }
        }
    }

    /// How `Date`s are written.
    public enum DateEncoding: Sendable {
        /// `Date`'s own `Encodable` conformance: seconds since 1 January 2001, e.g. `123.456`.
        /// The default.
        case deferredToDate
        /// Seconds since 1 January 1970, e.g. `978307323.456`.
        case secondsSince1970
        /// Milliseconds since 1 January 1970, e.g. `978307323456.0`.
        case millisecondsSince1970
        /// ISO 8601 / RFC 3339 in UTC, e.g. `2001-01-01T00:02:03Z` (sent as `2001-01-01T00%3A02%3A03Z`).
        case iso8601
        /// The formatter's string. Set its time zone and locale; do not change it afterwards.
        case formatted(DateFormatter)
        /// The closure's result. An error it throws ends the encoding.
        case custom(@Sendable (Date) throws -> String)

        func text(for date: Date) throws -> String? {
            switch self {
            case .deferredToDate: return nil
            case .secondsSince1970: return String(describing: date.timeIntervalSince1970)
            case .millisecondsSince1970: return String(describing: date.timeIntervalSince1970 * 1000)
            case .iso8601: return date.formatted(Date.ISO8601FormatStyle())
            case .formatted(let formatter): return formatter.string(from: date)
            case .custom(let encode): return try encode(date)
            }
        }
    }

    /// How coding keys (property names and dictionary keys) are turned into form keys.
    public enum KeyEncoding: Sendable {
        /// The keys as the type encodes them. The default.
        case useDefaultKeys
        /// `oneTwoThree` → `one_two_three`; `userID` → `user_id`.
        case convertToSnakeCase
        /// `oneTwoThree` → `one-two-three`.
        case convertToKebabCase
        /// The first letter uppercased: `oneTwoThree` → `OneTwoThree`.
        case capitalized
        /// `oneTwoThree` → `ONETWOTHREE`.
        case uppercased
        /// `oneTwoThree` → `onetwothree`.
        case lowercased
        /// The closure's result.
        case custom(@Sendable (String) -> String)

        /// The form key for `key`.
        ///
        /// - Parameter key: A coding key's `stringValue`.
        /// - Returns: The key as it is written into the form, before escaping.
        public func encode(_ key: String) -> String {
            switch self {
            case .useDefaultKeys: return key
            case .convertToSnakeCase: return Self.words(of: key).joined(separator: "_")
            case .convertToKebabCase: return Self.words(of: key).joined(separator: "-")
            case .capitalized: return key.prefix(1).uppercased() + key.dropFirst()
            case .uppercased: return key.uppercased()
            case .lowercased: return key.lowercased()
            case .custom(let encode): return encode(key)
            }
        }

        /// The lower-cased words of a camel-case key. A word starts at an upper-case letter
        /// that follows a lower-case letter or digit, and at the last capital of a run that
        /// a lower-case letter follows (`URLValue` → `url`, `value`). Leading and trailing
        /// underscores are kept.
        private static func words(of key: String) -> [String] {
            let characters = Array(key)
            guard !characters.isEmpty else { return [key] }
            var words: [String] = []
            var current = ""
            for (index, character) in characters.enumerated() {
                if character.isUppercase, !current.isEmpty, index > 0 {
                    let previous = characters[index - 1]
                    let next = index + 1 < characters.count ? characters[index + 1] : nil
                    let startsWord = previous.isLowercase || previous.isNumber
                        || (previous.isUppercase && next?.isLowercase == true)
                    if startsWord {
                        words.append(current)
                        current = ""
                    }
                }
                current.append(character)
            }
            words.append(current)
            return words.map { $0.lowercased() }
        }
    }

    /// How spaces in keys and values are escaped.
    public enum SpaceEncoding: Sendable, Hashable {
        /// `%20`, as RFC 3986 percent-encoding does. The default.
        case percentEscaped
        /// `+`, as HTML forms send them (`application/x-www-form-urlencoded`); a literal `+`
        /// is then `%2B`.
        case plusReplaced
    }
}

extension CharacterSet {
    /// What a form key or value keeps unescaped (Alamofire's `afURLQueryAllowed`): RFC 3986's
    /// unreserved characters, `?` and `/`; every other delimiter (`:#[]@!$&'()*+,;=`) is escaped.
    public static let afURLQueryAllowed: CharacterSet = {
        CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: ":#[]@!$&'()*+,;="))
    }()
}
