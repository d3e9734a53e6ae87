/// A single-pass JSON parser over UTF-8 bytes.
///
/// It allocates only for the values it produces (plus a scratch buffer for strings that
/// contain escapes). Nesting is handled with an explicit stack of open containers instead
/// of recursion, so its stack use does not grow with the depth of the input; the depth
/// limit (``JSON/maximumNestingDepth``) is a policy, not a guard against overflow.
/// Errors compute their line and column only when thrown.
struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses exactly one JSON value surrounded by optional whitespace.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSON.ParseError) -> JSON {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            parser.index = 3
        } else if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            throw parser.error("JSON must be UTF-8, but the input starts with a UTF-16 byte order mark", at: 0)
        }
        parser.skipWhitespace()
        guard parser.index < bytes.count else { throw parser.error("empty input", at: parser.index) }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.error("unexpected \(parser.describe(at: parser.index)) after the JSON value", at: parser.index)
        }
        return value
    }

    // MARK: Values

    /// An array or object whose closing bracket has not been read yet.
    private struct OpenContainer {
        let isObject: Bool
        var elements: [JSON] = []
        var members: [String: JSON] = [:]
        /// For an object: the key of the member whose value is being parsed.
        var key = ""
    }

    /// Parses one value, nested containers included, without recursion.
    private mutating func parseValue() throws(JSON.ParseError) -> JSON {
        var stack: [OpenContainer] = []
        while true {
            // Read the start of a value: a scalar or an empty container is complete at once;
            // a non-empty container is pushed and its first element read next.
            guard index < bytes.count else { throw error("unexpected end of input, expected a value", at: index) }
            var value: JSON
            switch bytes[index] {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                let isObject = bytes[index] == UInt8(ascii: "{")
                guard stack.count < JSON.maximumNestingDepth else {
                    throw error("nesting deeper than \(JSON.maximumNestingDepth) levels", at: index)
                }
                index += 1
                skipWhitespace()
                if index < bytes.count, bytes[index] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    value = isObject ? .object([:]) : .array([])
                } else {
                    var container = OpenContainer(isObject: isObject)
                    if isObject { container.key = try parseKey() }
                    stack.append(container)
                    continue
                }
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "t"): try parseLiteral("true"); value = .bool(true)
            case UInt8(ascii: "f"): try parseLiteral("false"); value = .bool(false)
            case UInt8(ascii: "n"): try parseLiteral("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
            default: throw error("unexpected \(describe(at: index)), expected a value", at: index)
            }
            // Store the complete value in the innermost open container, then either start the
            // next element (after a comma) or close that container, which completes it in turn.
            while let last = stack.indices.last {
                let isObject = stack[last].isObject
                if isObject {
                    let key = stack[last].key
                    stack[last].members[key] = value
                } else {
                    stack[last].elements.append(value)
                }
                let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                skipWhitespace()
                guard index < bytes.count else {
                    throw error("unexpected end of input, expected ',' or '\(Character(Unicode.Scalar(close)))'", at: index)
                }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == close {
                        throw error("trailing comma before '\(Character(Unicode.Scalar(close)))' is not allowed", at: index)
                    }
                    if isObject { stack[last].key = try parseKey() }
                    break
                } else if bytes[index] == close {
                    index += 1
                    let container = stack.removeLast()
                    value = isObject ? .object(container.members) : .array(container.elements)
                } else {
                    let after = isObject ? "'}' after an object member" : "']' after an array element"
                    throw error("unexpected \(describe(at: index)), expected ',' or \(after)", at: index)
                }
            }
            if stack.isEmpty { return value }
        }
    }

    /// Reads `"key" :` and the whitespace after it.
    private mutating func parseKey() throws(JSON.ParseError) -> String {
        guard index < bytes.count else { throw error("unexpected end of input, expected a string key", at: index) }
        guard bytes[index] == UInt8(ascii: "\"") else {
            throw error("unexpected \(describe(at: index)), expected a string key in double quotes", at: index)
        }
        let key = try parseString()
        skipWhitespace()
        guard index < bytes.count else { throw error("unexpected end of input, expected ':'", at: index) }
        guard bytes[index] == UInt8(ascii: ":") else {
            throw error("unexpected \(describe(at: index)), expected ':' after an object key", at: index)
        }
        index += 1
        skipWhitespace()
        return key
    }

    private mutating func parseLiteral(_ literal: StaticString) throws(JSON.ParseError) {
        let start = index
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        for byte in expected {
            guard index < bytes.count else { throw error("unexpected end of input inside '\(literal)'", at: index) }
            guard bytes[index] == byte else { throw error("invalid literal, expected '\(literal)'", at: start) }
            index += 1
        }
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSON.ParseError) -> Double {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw error(index < bytes.count ? "expected a digit after '-'" : "unexpected end of input in a number", at: index)
        }
        var integer = 0
        var digitCount = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw error("leading zeros are not allowed in numbers", at: start)
            }
        }
        while index < bytes.count, isDigit(bytes[index]) {
            if digitCount < 15 { integer = integer &* 10 &+ Int(bytes[index] &- UInt8(ascii: "0")) }
            digitCount += 1
            index += 1
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try skipDigits(after: "the decimal point")
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            try skipDigits(after: "the exponent marker")
        }
        // Fast path: up to 15 digits are exact in an Int and in a Double.
        if isInteger, digitCount <= 15 {
            return negative ? -Double(integer) : Double(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("number out of range: \(text.prefix(40)) is too large for a Double", at: start)
        }
        return value
    }

    private mutating func skipDigits(after what: String) throws(JSON.ParseError) {
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw error(index < bytes.count ? "expected a digit after \(what)" : "unexpected end of input in a number", at: index)
        }
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    // MARK: Strings

    private mutating func parseString() throws(JSON.ParseError) -> String {
        let quote = index
        index += 1
        let contentStart = index
        // Fast path: no escapes, so the string is a slice of the input.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]), as: UTF8.self)
                index += 1
                return text
            } else if byte == UInt8(ascii: "\\") {
                break
            } else if byte < 0x20 {
                throw error("unescaped \(describe(at: index)) in a string", at: index)
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipUTF8Scalar()
            }
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(index - contentStart + 16)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: buffer, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                try parseEscape(into: &buffer)
            } else if byte < 0x20 {
                throw error("unescaped \(describe(at: index)) in a string", at: index)
            } else if byte < 0x80 {
                buffer.append(byte)
                index += 1
            } else {
                let start = index
                try skipUTF8Scalar()
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            }
        }
        throw error("unterminated string: no closing '\"' before the end of input", at: quote)
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSON.ParseError) {
        let start = index
        index += 1  // the backslash
        guard index < bytes.count else { throw error("unexpected end of input in an escape sequence", at: start) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: start)
            if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired low surrogate \\u\(hex(scalar)) in a string", at: start)
            }
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired high surrogate \\u\(hex(scalar)) in a string", at: start)
                }
                let lowStart = index
                index += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("unpaired high surrogate \\u\(hex(scalar)) in a string", at: start)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar, to: &buffer)
        default:
            index -= 1
            throw error("invalid escape sequence: backslash followed by \(describe(at: index))", at: start)
        }
    }

    private mutating func parseHex4(escapeStart: Int) throws(JSON.ParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error("unexpected end of input in a \\u escape", at: escapeStart) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape: expected 4 hex digits", at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private func appendUTF8(_ scalar: UInt32, to buffer: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            buffer.append(UInt8(scalar))
        case ..<0x800:
            buffer.append(UInt8(0xC0 | scalar >> 6))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            buffer.append(UInt8(0xE0 | scalar >> 12))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        default:
            buffer.append(UInt8(0xF0 | scalar >> 18))
            buffer.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Validates one multi-byte UTF-8 scalar at `index` (Unicode Table 3-7: no overlong
    /// forms, no surrogates, nothing above U+10FFFF) and steps over it.
    private mutating func skipUTF8Scalar() throws(JSON.ParseError) {
        guard let length = utf8ScalarLength(at: index) else {
            let bad = index + utf8ValidPrefix(at: index)
            let what = bad < bytes.count ? "invalid UTF-8 byte 0x\(hex(UInt32(bytes[bad]), width: 2))" : "truncated UTF-8 sequence"
            throw error("\(what) in a string", at: bad)
        }
        index += length
    }

    /// The length of the valid UTF-8 scalar starting at `position`, or `nil`.
    private func utf8ScalarLength(at position: Int) -> Int? {
        let valid = utf8ValidPrefix(at: position)
        let lead = bytes[position]
        let needed = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
        return valid == needed ? needed : nil
    }

    /// How many bytes from `position` form a valid (possibly incomplete) UTF-8 prefix.
    private func utf8ValidPrefix(at position: Int) -> Int {
        let lead = bytes[position]
        let secondRange: ClosedRange<UInt8>
        let length: Int
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: secondRange = 0x80...0xBF; length = 2
        case 0xE0: secondRange = 0xA0...0xBF; length = 3
        case 0xED: secondRange = 0x80...0x9F; length = 3
        case 0xE1...0xEF: secondRange = 0x80...0xBF; length = 3
        case 0xF0: secondRange = 0x90...0xBF; length = 4
        case 0xF1...0xF3: secondRange = 0x80...0xBF; length = 4
        case 0xF4: secondRange = 0x80...0x8F; length = 4
        default: return 0
        }
        var count = 1
        while count < length {
            let at = position + count
            guard at < bytes.count else { return count }
            let range: ClosedRange<UInt8> = count == 1 ? secondRange : 0x80...0xBF
            guard range.contains(bytes[at]) else { return count }
            count += 1
        }
        return count
    }

    // MARK: Whitespace, descriptions, errors

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// A short description of the input at `position` for error messages.
    private func describe(at position: Int) -> String {
        let byte = bytes[position]
        switch byte {
        case 0x20..<0x7F: return "character '\(Character(Unicode.Scalar(byte)))'"
        case ..<0x80: return "control character U+\(hex(UInt32(byte)))"
        default:
            guard let length = utf8ScalarLength(at: position) else {
                return "invalid UTF-8 byte 0x\(hex(UInt32(byte), width: 2))"
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<position + length]), as: UTF8.self)
            guard let scalar = text.unicodeScalars.first else { return "invalid UTF-8 byte 0x\(hex(UInt32(byte), width: 2))" }
            // Quoted, a C1 control, bidi override or invisible character
            // would act on the terminal or log showing the message.
            switch scalar.properties.generalCategory {
            case .control: return "control character U+\(hex(scalar.value))"
            case .format, .lineSeparator, .paragraphSeparator: return "invisible character U+\(hex(scalar.value))"
            default: return "character '\(text)' (U+\(hex(scalar.value)))"
            }
        }
    }

    private func hex(_ value: UInt32, width: Int = 4) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Builds the error, computing the line and column only now (errors are the slow path).
    private func error(_ message: String, at offset: Int) -> JSON.ParseError {
        let offset = min(offset, bytes.count)
        var line = 1
        var column = 1
        let hasBOM = bytes.starts(with: [0xEF, 0xBB, 0xBF])
        var position = hasBOM && offset >= 3 ? 3 : 0
        while position < offset {
            let byte = bytes[position]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            position += 1
        }
        return JSON.ParseError(message: message, offset: offset, line: line, column: column)
    }
}
