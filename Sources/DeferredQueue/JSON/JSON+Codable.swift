import Foundation

extension JSON: Codable {
    /// Decodes any JSON value from a single-value container.
    ///
    /// Kinds are tried in the order null, Bool, Double, String, array, object, so with
    /// `JSONDecoder` `true` stays ``JSON/bool(_:)`` and `1` stays ``JSON/number(_:)``.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.typeMismatch` when the value is none of the six kinds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: JSON].self) {
            self = .object(value)
        } else {
            throw DecodingError.typeMismatch(
                JSON.self,
                .init(codingPath: decoder.codingPath, debugDescription: "The value is not null, a Bool, a number, a string, an array or an object.")
            )
        }
    }

    /// Encodes the value into a single-value container. A non-finite number encodes as
    /// null, as in ``encoded(prettyPrinted:sortedKeys:)``.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value) where !value.isFinite: try container.encodeNil()
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSON {
    /// Serializes the value as JSON text.
    ///
    /// Strings are escaped as RFC 8259 requires (`"`, `\`, and control characters; other
    /// characters are written as UTF-8). Integral numbers print without a fraction (`42`,
    /// not `42.0`); other numbers print in the shortest form that parses back to the same
    /// `Double`; infinities and NaN print as `null`. Pretty output puts each element and
    /// member on its own line, indented by two spaces, with `": "` after keys:
    ///
    /// ```
    /// {
    ///   "a": [
    ///     1,
    ///     true
    ///   ],
    ///   "b": {}
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - prettyPrinted: Whether to add line breaks and indentation.
    ///   - sortedKeys: Whether to write object members sorted by key, which makes the output
    ///     deterministic; otherwise dictionary order.
    /// - Returns: The JSON text.
    public func encoded(prettyPrinted: Bool = false, sortedKeys: Bool = true) -> String {
        var writer = JSONWriter(pretty: prettyPrinted, sortedKeys: sortedKeys)
        writer.write(self, indent: 0)
        return String(decoding: writer.output, as: UTF8.self)
    }
}

/// Appends JSON text as UTF-8 bytes to one buffer.
struct JSONWriter {
    let pretty: Bool
    let sortedKeys: Bool
    private(set) var output: [UInt8] = []

    init(pretty: Bool, sortedKeys: Bool) {
        self.pretty = pretty
        self.sortedKeys = sortedKeys
    }

    mutating func write(_ value: JSON, indent: Int) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let number): writeNumber(number)
        case .string(let text): writeString(text)
        case .array(let elements):
            guard !elements.isEmpty else { return append("[]") }
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent: indent + 1)
                write(element, indent: indent + 1)
            }
            newline(indent: indent)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return append("{}") }
            output.append(UInt8(ascii: "{"))
            let keys = sortedKeys ? members.keys.sorted() : Array(members.keys)
            for (position, key) in keys.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(indent: indent + 1)
                writeString(key)
                append(pretty ? ": " : ":")
                write(members[key] ?? .null, indent: indent + 1)
            }
            newline(indent: indent)
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func newline(indent: Int) {
        guard pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private mutating func writeNumber(_ number: Double) {
        guard number.isFinite else { return append("null") }
        if number == 0 {
            return append(number.sign == .minus ? "-0" : "0")
        }
        // Integral values below 2^63 in magnitude print as integers; beyond that `description`
        // gives the shortest round-tripping form, e.g. "1e+300", "0.1", "1e-07".
        if let integer = Int64(exactly: number) {
            output.append(contentsOf: String(integer).utf8)
        } else {
            output.append(contentsOf: number.description.utf8)
        }
    }

    private mutating func writeString(_ text: String) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case ..<0x20:
                append("\\u00")
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
