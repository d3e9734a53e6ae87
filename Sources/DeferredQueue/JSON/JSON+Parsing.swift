import Foundation

extension JSON {
    /// Why and where a JSON text is malformed.
    ///
    /// ```swift
    /// do { _ = try JSON(parsing: "{\n  \"a\": tru\n}") }
    /// catch { print(error) }   // line 2, column 8 (byte 9): invalid literal, expected 'true'
    /// ```
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, in words (e.g. `"empty input"`, `"leading zeros are not allowed"`).
        public let message: String
        /// The zero-based byte offset of the problem in the input (a UTF-8 BOM counts).
        public let offset: Int
        /// The one-based line of the problem; lines end at `\n`.
        public let line: Int
        /// The one-based column of the problem, counted in Unicode scalars within its line.
        public let column: Int

        /// Creates a parse error.
        ///
        /// - Parameters:
        ///   - message: What is wrong.
        ///   - offset: The zero-based byte offset.
        ///   - line: The one-based line.
        ///   - column: The one-based column.
        public init(message: String, offset: Int, line: Int, column: Int) {
            self.message = message
            self.offset = offset
            self.line = line
            self.column = column
        }

        /// `"line L, column C (byte B): message"`.
        public var description: String {
            "line \(line), column \(column) (byte \(offset)): \(message)"
        }
    }

    /// The deepest nesting of arrays and objects the parser accepts; deeper input is a
    /// ``ParseError`` rather than a stack overflow.
    public static let maximumNestingDepth = 512

    /// Parses a strict RFC 8259 JSON text from UTF-8 bytes.
    ///
    /// A leading UTF-8 byte order mark and whitespace around the value are accepted.
    /// Everything else that RFC 8259 forbids is rejected with a ``ParseError`` that says
    /// where: truncated input, trailing characters, leading zeros, `NaN`/`Infinity`,
    /// trailing commas, comments, bad escapes, unescaped control characters, invalid UTF-8,
    /// unpaired UTF-16 surrogates in `\u` escapes (rejected, not replaced), numbers too
    /// large for a `Double`, and nesting deeper than ``maximumNestingDepth``.
    /// A repeated object key keeps its last value.
    ///
    /// - Parameter data: The JSON text, UTF-8 encoded.
    /// - Throws: ``ParseError`` when `data` is not a single valid JSON value
    ///   (`"empty input"` when it holds nothing but whitespace).
    public init(parsing data: Data) throws(ParseError) {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ParseError) -> JSON in
                try JSONParser.parse(raw.assumingMemoryBound(to: UInt8.self))
            }
        }
        self = try result.get()
    }

    /// Parses a strict RFC 8259 JSON text from a string.
    ///
    /// - Parameter string: The JSON text.
    /// - Throws: ``ParseError`` when `string` is not a single valid JSON value; offsets are
    ///   in UTF-8 bytes of `string`.
    public init(parsing string: String) throws(ParseError) {
        var text = string
        let result = text.withUTF8 { bytes in
            Result { () throws(ParseError) -> JSON in try JSONParser.parse(bytes) }
        }
        self = try result.get()
    }
}
