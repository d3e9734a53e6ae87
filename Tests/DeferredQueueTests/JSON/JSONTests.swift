import Foundation
import TestSupport
import Testing

@testable import DeferredQueue

@Suite("JSON")
struct JSONTests {
    // MARK: Values and accessors

    static let everyKind: [JSON] = [
        nil, true, false, 0, -1, 42, 1.5, -0.25, 1e300, .number(.leastNonzeroMagnitude), 9_007_199_254_740_992,
        "", "plain", "héllo \"quoted\" \\ / \n\r\t\u{8}\u{C}\u{0}\u{1F} 日本 😀",
        [], [1, "two", [3], ["four": 4]], [:], ["a": ["b": ["c": [nil, true]]], "": "empty key", "😀": 1],
    ]

    @Test("every kind round-trips through text", arguments: everyKind)
    func everyKindRoundTripsThroughText(value: JSON) throws {
        #expect(try JSON(parsing: value.encoded()) == value)
        #expect(try JSON(parsing: value.encoded(prettyPrinted: true)) == value)
        #expect(try JSON(parsing: value.encoded(sortedKeys: false)) == value)
        #expect(try JSON(parsing: Data(value.description.utf8)) == value)
    }

    @Test func boolsStayDistinctFromNumbers() throws {
        let parsed = try JSON(parsing: "[true, 1, false, 0, 1.0]")
        #expect(parsed == [.bool(true), .number(1), .bool(false), .number(0), .number(1)])
        #expect(JSON.bool(true) != JSON.number(1))
        #expect(parsed[0].bool == true && parsed[0].int == nil && parsed[0].double == nil)
        #expect(parsed[1].int == 1 && parsed[1].bool == nil)
        #expect(parsed[2].bool == false && parsed[3].bool == nil)
    }

    @Test func subscriptsGiveNullForAbsentOutOfRangeOrWrongKind() throws {
        let json = try JSON(parsing: #"{"list": [10, 20], "name": "x", "nothing": null}"#)
        #expect(json["list"][1] == 20)
        #expect(json["missing"] == .null)
        #expect(json["missing"]["deeper"][3] == .null)
        #expect(json["list"][2] == .null)
        #expect(json["list"][-1] == .null)
        #expect(json["name"]["key"] == .null)
        #expect(json["name"][0] == .null)
        #expect(json[0] == .null)
        #expect(json["nothing"].isNull && json["missing"].isNull && !json["name"].isNull)
    }

    @Test func typedAccessorsReturnNilForOtherKinds() {
        let number: JSON = 42
        #expect(number.int == 42 && number.double == 42 && number.string == nil)
        #expect(JSON.number(1.5).int == nil)
        #expect(JSON.number(1e300).int == nil)
        #expect(JSON.number(-0.0).int == 0)
        #expect(JSON.number(.nan).int == nil)
        #expect(JSON.string("7").int == nil && JSON.string("7").string == "7")
        #expect(JSON.array([1]).array == [1] && JSON.array([1]).object == nil)
        #expect(JSON.object(["k": 1]).object == ["k": 1] && JSON.object([:]).array == nil)
        #expect(JSON.null.string == nil && JSON.null.bool == nil && JSON.null.isNull)
    }

    @Test func literalsBuildTheMatchingKinds() {
        let json: JSON = ["a": [nil, true, 1, 2.5, "s"], "a2": [:]]
        #expect(json == .object(["a": .array([.null, .bool(true), .number(1), .number(2.5), .string("s")]), "a2": .object([:])]))
        let repeated: JSON = ["k": 1, "k": 2]
        #expect(repeated == ["k": 2])
    }

    // MARK: Parsing

    @Test func parsesBigAndSmallNumbersExactly() throws {
        #expect(try JSON(parsing: "9007199254740992").int == 1 << 53)
        #expect(try JSON(parsing: "-9007199254740991").int == -(1 << 53 - 1))
        #expect(try JSON(parsing: "123456789012345").int == 123_456_789_012_345)
        #expect(try JSON(parsing: "1234567890123456").int == 1_234_567_890_123_456)
        #expect(try JSON(parsing: "9007199254740993").double == 9_007_199_254_740_992)
        #expect(try JSON(parsing: "123456789012345678901234567890").double == 1.2345678901234568e29)
        #expect(try JSON(parsing: "1.7976931348623157e308").double == .greatestFiniteMagnitude)
        #expect(try JSON(parsing: "5e-324").double == .leastNonzeroMagnitude)
        #expect(try JSON(parsing: "1e-400").double == 0)
        #expect(try JSON(parsing: "0.1").double == 0.1)
        #expect(try JSON(parsing: "1E+2").double == 100)
        #expect(try JSON(parsing: "-1.5e-3").double == -0.0015)
        #expect(try JSON(parsing: "-0").double?.sign == .minus)
        #expect(try JSON(parsing: "[0,-0,0.0,0e0]") == [0, 0, 0, 0])
    }

    @Test func decodesUnicodeEscapesAndSurrogatePairs() throws {
        #expect(try JSON(parsing: #""\u00e9\u65E5\ud83d\ude00\n\/\"\\\b\f\r\t""#) == "é日😀\n/\"\\\u{8}\u{C}\r\t")
        #expect(try JSON(parsing: #""\u0000""#) == "\u{0}")
        #expect(try JSON(parsing: "\"日本 😀 raw\"") == "日本 😀 raw")
        #expect(try JSON(parsing: #""mixed é \u00e9 😀 \uD83D\uDE00""#) == "mixed é é 😀 😀")
        #expect(try JSON(parsing: #"{"\u006B\u0065\u0079": 1}"#) == ["key": 1])
    }

    @Test func acceptsByteOrderMarkAndSurroundingWhitespace() throws {
        #expect(try JSON(parsing: Data([0xEF, 0xBB, 0xBF] + Array(" \t\r\n[1]\n ".utf8))) == [1])
        #expect(try JSON(parsing: "\u{FEFF}{}") == [:])
    }

    @Test func repeatedKeysKeepTheLastValue() throws {
        #expect(try JSON(parsing: #"{"a": 1, "a": 2}"#) == ["a": 2])
    }

    @Test func parsesDataSlicesAndStringsAlike() throws {
        let whole = Data("xx[1, \"é\"]".utf8)
        let slice = whole.dropFirst(2)
        #expect(slice.startIndex == 2)
        #expect(try JSON(parsing: slice) == [1, "é"])
        #expect(try JSON(parsing: String(decoding: slice, as: UTF8.self)) == [1, "é"])
    }

    @Test func parsesAMegabyteDocument() throws {
        let entries: [JSON] = (0..<8_000).map { index in
            [
                "id": .number(Double(index)), "title": .string("Entry \(index) — naïve café \"quoted\" 😀"),
                "score": .number(Double(index) / 7), "tags": ["swift", "json", .string("t\(index % 13)")],
                "visible": .bool(index.isMultiple(of: 2)), "parent": index > 0 ? .number(Double(index - 1)) : nil,
            ]
        }
        let document: JSON = ["entries": .array(entries), "count": .number(Double(entries.count))]
        let text = document.encoded(prettyPrinted: true)
        #expect(text.utf8.count > 1_000_000)
        let parsed = try JSON(parsing: Data(text.utf8))
        #expect(parsed == document)
        #expect(parsed["entries"][7_999]["title"].string?.hasPrefix("Entry 7999") == true)
    }

    // MARK: Errors

    struct Malformed: Sendable, CustomTestStringConvertible {
        let input: [UInt8]
        let message: String
        let offset: Int
        let line: Int
        let column: Int
        var testDescription: String { String(decoding: input, as: UTF8.self).debugDescription }

        init(_ text: String, _ message: String, offset: Int, line: Int = 1, column: Int) {
            self.init(bytes: Array(text.utf8), message, offset: offset, line: line, column: column)
        }

        init(bytes: [UInt8], _ message: String, offset: Int, line: Int = 1, column: Int) {
            (input, self.message, self.offset, self.line, self.column) = (bytes, message, offset, line, column)
        }
    }

    static let malformed: [Malformed] = [
        Malformed("", "empty input", offset: 0, column: 1),
        Malformed("  \n   ", "empty input", offset: 6, line: 2, column: 4),
        Malformed("{\n  \"a\": tru\n}", "invalid literal, expected 'true'", offset: 9, line: 2, column: 8),
        Malformed("[1, nul", "unexpected end of input inside 'null'", offset: 7, column: 8),
        Malformed("[1,2", "unexpected end of input, expected ',' or ']'", offset: 4, column: 5),
        Malformed("[1 2]", "unexpected character '2', expected ',' or ']'", offset: 3, column: 4),
        Malformed("[1,]", "trailing comma before ']' is not allowed", offset: 3, column: 4),
        Malformed("{\"a\":1,}", "trailing comma before '}' is not allowed", offset: 7, column: 8),
        Malformed("{\"a\" 1}", "expected ':' after an object key", offset: 5, column: 6),
        Malformed("{1:2}", "expected a string key", offset: 1, column: 2),
        Malformed("{\"a\":1 \"b\":2}", "expected ',' or '}'", offset: 7, column: 8),
        Malformed("[1] x", "unexpected character 'x' after the JSON value", offset: 4, column: 5),
        Malformed("01", "leading zeros are not allowed", offset: 0, column: 1),
        Malformed("[-01]", "leading zeros are not allowed", offset: 1, column: 2),
        Malformed("[-]", "expected a digit after '-'", offset: 2, column: 3),
        Malformed("1.e5", "expected a digit after the decimal point", offset: 2, column: 3),
        Malformed("1e", "unexpected end of input in a number", offset: 2, column: 3),
        Malformed(".5", "unexpected character '.', expected a value", offset: 0, column: 1),
        Malformed("+1", "unexpected character '+', expected a value", offset: 0, column: 1),
        Malformed("NaN", "unexpected character 'N', expected a value", offset: 0, column: 1),
        Malformed("1e400", "number out of range", offset: 0, column: 1),
        Malformed("[-1e999]", "number out of range", offset: 1, column: 2),
        Malformed("\"abc", "unterminated string", offset: 0, column: 1),
        Malformed("[\"a\\x\"]", "invalid escape sequence: backslash followed by character 'x'", offset: 3, column: 4),
        Malformed("\"\\u12G4\"", "invalid \\u escape: expected 4 hex digits", offset: 1, column: 2),
        Malformed("\"\\u12", "unexpected end of input in a \\u escape", offset: 1, column: 2),
        Malformed("\"ab\\uD800\"", "unpaired high surrogate \\uD800", offset: 3, column: 4),
        Malformed("\"\\uD83D\\u0041\"", "unpaired high surrogate \\uD83D", offset: 1, column: 2),
        Malformed("\"\\uDC00\"", "unpaired low surrogate \\uDC00", offset: 1, column: 2),
        Malformed("\"a\tb\"", "unescaped control character U+0009 in a string", offset: 2, column: 3),
        Malformed("\"a\nb\"", "unescaped control character U+000A in a string", offset: 2, column: 3),
        Malformed("[1,\n 2,\n x]", "unexpected character 'x', expected a value", offset: 9, line: 3, column: 2),
        Malformed("[\"日本\", é]", "unexpected character 'é' (U+00E9), expected a value", offset: 11, column: 8),
        Malformed("\u{FEFF}  x", "unexpected character 'x'", offset: 5, column: 3),
        Malformed("[\u{9B}2J]", "unexpected control character U+009B, expected a value", offset: 1, column: 2),
        Malformed("[1\u{202E}]", "unexpected invisible character U+202E, expected ',' or ']'", offset: 2, column: 3),
        Malformed("// comment\n1", "unexpected character '/', expected a value", offset: 0, column: 1),
        Malformed(bytes: [0x22, 0xFF, 0x22], "invalid UTF-8 byte 0xFF in a string", offset: 1, column: 2),
        Malformed(bytes: [0x22, 0xC0, 0x80, 0x22], "invalid UTF-8 byte 0xC0 in a string", offset: 1, column: 2),
        Malformed(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 byte 0xA0 in a string", offset: 2, column: 3),
        Malformed(bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 byte 0x90 in a string", offset: 2, column: 3),
        Malformed(bytes: [0x22, 0xE6, 0x97, 0x22], "invalid UTF-8 byte 0x22 in a string", offset: 3, column: 3),
        Malformed(bytes: [0x22, 0xE6, 0x97], "truncated UTF-8 sequence in a string", offset: 3, column: 3),
        Malformed(bytes: [0x5B, 0xFF, 0x5D], "invalid UTF-8 byte 0xFF, expected a value", offset: 1, column: 2),
        Malformed(bytes: [0xFF, 0xFE, 0x5B, 0x00], "JSON must be UTF-8", offset: 0, column: 1),
    ]

    @Test("malformed input gives a positioned error", arguments: malformed)
    func malformedInputGivesAPositionedError(_ example: Malformed) {
        do {
            let value = try JSON(parsing: Data(example.input))
            Issue.record("parsed \(value) instead of failing")
        } catch {
            #expect(error.message.contains(example.message), "\(error)")
            #expect(error.offset == example.offset, "\(error)")
            #expect(error.line == example.line, "\(error)")
            #expect(error.column == example.column, "\(error)")
        }
    }

    @Test func errorDescriptionNamesLineColumnAndByte() {
        #expect(throws: JSON.ParseError(message: "empty input", offset: 0, line: 1, column: 1)) { try JSON(parsing: "") }
        let error = JSON.ParseError(message: "oops", offset: 9, line: 2, column: 8)
        #expect(error.description == "line 2, column 8 (byte 9): oops")
    }

    @Test func nestingUpToTheLimitParsesAndDeeperIsAnError() throws {
        let limit = JSON.maximumNestingDepth
        #expect(limit == 512)
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        var value = try JSON(parsing: deepest)
        for _ in 1..<limit { value = value[0] }
        #expect(value == [])

        for input in [
            String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1),
            String(repeating: "[", count: 1_000_000),
            String(repeating: #"{"a":"#, count: 100_000),
        ] {
            let error = #expect(throws: JSON.ParseError.self) { try JSON(parsing: input) }
            #expect(error?.message == "nesting deeper than 512 levels")
            #expect(error?.offset == (input.hasPrefix("{") ? 5 * limit : limit))
        }
    }

    // MARK: Codable and serialization

    @Test func codableRoundTripKeepsEveryKind() throws {
        for value in Self.everyKind where value.double?.isFinite ?? true {
            let data = try JSONEncoder().encode(value)
            #expect(try JSONDecoder().decode(JSON.self, from: data) == value)
        }
        let decoded = try JSONDecoder().decode(JSON.self, from: Data(#"[true, 1, "1", null, {"a": false}]"#.utf8))
        #expect(decoded == [true, 1, "1", nil, ["a": false]])
    }

    @Test func decodesAsAFieldOfADecodableType() throws {
        struct Envelope: Codable, Equatable {
            let id: Int
            let payload: JSON
            let extra: JSON?
        }
        let data = Data(#"{"id": 7, "payload": {"k": [1, true, null]}}"#.utf8)
        let envelope = try JSONDecoder().decode(Envelope.self, from: data)
        #expect(envelope == Envelope(id: 7, payload: ["k": [1, true, nil]], extra: nil))
        #expect(try JSONDecoder().decode(Envelope.self, from: JSONEncoder().encode(envelope)) == envelope)
    }

    @Test func prettyPrintingHasAnExactShape() {
        let value: JSON = ["b": [1, true, [:], []], "a": "x", "c": ["d": nil]]
        #expect(value.encoded() == #"{"a":"x","b":[1,true,{},[]],"c":{"d":null}}"#)
        #expect(value.description == value.encoded())
        #expect(
            value.encoded(prettyPrinted: true) == """
                {
                  "a": "x",
                  "b": [
                    1,
                    true,
                    {},
                    []
                  ],
                  "c": {
                    "d": null
                  }
                }
                """)
        #expect(JSON.array([]).encoded(prettyPrinted: true) == "[]")
        #expect(JSON.string("s").encoded(prettyPrinted: true) == "\"s\"")
    }

    @Test func numbersPrintInTheirShortestForm() {
        let cases: [(Double, String)] = [
            (42, "42"), (-7, "-7"), (0, "0"), (-0.0, "-0"), (0.5, "0.5"), (0.1 + 0.2, "0.30000000000000004"),
            (1e300, "1e+300"), (1e-7, "1e-07"), (9_007_199_254_740_992, "9007199254740992"),
            (9.223372036854776e18, "9.223372036854776e+18"), (.infinity, "null"), (-.infinity, "null"), (.nan, "null"),
        ]
        for (number, text) in cases {
            #expect(JSON.number(number).encoded() == text)
        }
    }

    @Test func stringsAreEscapedAsRFC8259Requires() throws {
        let value = JSON.string("\"\\/\n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F} é 😀")
        #expect(value.encoded() == #""\"\\/\n\r\t\b\f\u0000\u001f"# + "\u{7F} é 😀\"")
        #expect(try JSON(parsing: value.encoded()) == value)
    }

    // MARK: Fuzzing

    @Test func fuzzedBytesGiveAValueOrAnErrorAndValuesRoundTrip() {
        var random = SeededRandom(seed: 0x5EED_1234)
        let seeds: [[UInt8]] = [
            #"{"a":[1,2.5,-3e10,true,false,null],"b":{"c":"d\u00e9\n"},"e":""}"#,
            #"[[[[{}]]],"\ud83d\ude00",0,-0.0e-0,1E+2]"#, #"{"":{"":[{"x":"日本"}]}}"#, "\u{FEFF} [1, \"x\", {\"y\": [null]}] ",
            "0", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "123456789012345678901234567890", "[\"é😀\",\"\\u0041\"]",
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]:,"\ -+.eE0123456789tfnrulsa/u"#.utf8) + [0x0A, 0x09, 0xC3, 0xA9, 0xFF, 0x00]

        var parsedCount = 0
        var failures: [String] = []
        for round in 0..<10_000 {
            var bytes: [UInt8]
            if round.isMultiple(of: 2) {
                bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in
                    Bool.random(using: &random)
                        ? alphabet.randomElement(using: &random) ?? 0 : UInt8.random(in: 0...255, using: &random)
                }
            } else {
                bytes = seeds.randomElement(using: &random) ?? []
                for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                    let at = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes.insert(alphabet.randomElement(using: &random) ?? 0, at: at)
                    case 2: bytes.remove(at: at)
                    case 3: bytes.removeLast(Int.random(in: 0...(bytes.count - at), using: &random))
                    default: bytes[at] = alphabet.randomElement(using: &random) ?? 0
                    }
                }
            }
            do {
                let value = try JSON(parsing: Data(bytes))
                parsedCount += 1
                let compact = try JSON(parsing: value.encoded())
                let pretty = try JSON(parsing: value.encoded(prettyPrinted: true, sortedKeys: false))
                if compact != value || pretty != value { failures.append("round trip changed \(bytes)") }
            } catch {
                if error.line < 1 || error.column < 1 || !(0...bytes.count).contains(error.offset) || error.message.isEmpty {
                    failures.append("bad error \(error) for \(bytes)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(parsedCount > 500, "the fuzz should also produce valid documents")
    }

    @Test func randomValuesRoundTripThroughText() throws {
        var random = SeededRandom(seed: 2_024)
        func randomString() -> String {
            var text = ""
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                let ranges: [ClosedRange<UInt32>] = [0...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
                let range = ranges.randomElement(using: &random) ?? 0...0x7F
                text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: range, using: &random)) ?? "?")
            }
            return text
        }
        func randomValue(depth: Int) -> JSON {
            switch Int.random(in: 0..<(depth > 4 ? 4 : 6), using: &random) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &random))
            case 2:
                let bits = Double(bitPattern: random.next())
                return .number(bits.isFinite ? bits : Double(Int32.random(in: .min ... .max, using: &random)))
            case 3: return .string(randomString())
            case 4: return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in randomValue(depth: depth + 1) })
            default:
                var members: [String: JSON] = [:]
                for _ in 0..<Int.random(in: 0...4, using: &random) { members[randomString()] = randomValue(depth: depth + 1) }
                return .object(members)
            }
        }
        for _ in 0..<2_000 {
            let value = randomValue(depth: 0)
            #expect(try JSON(parsing: value.encoded()) == value)
        }
    }

    /// Alamofire's `responseJSON` delivered `JSONSerialization`'s `Any`;
    /// code that casts it ports through `foundationValue`.
    @Test func foundationValueHasJSONSerializationsShape() throws {
        let json: JSON = ["form": ["foo": "bar"], "n": 3, "x": 1.5, "ok": true, "none": nil, "list": [1, "a"]]
        let object = try #require(json.foundationValue as? [String: Any])
        #expect(object["form"] as? [String: String] == ["foo": "bar"])
        #expect(object["n"] as? Int == 3)
        #expect(object["x"] as? Double == 1.5)
        #expect(object["ok"] as? Bool == true)
        #expect(object["none"] is NSNull)
        let list = try #require(object["list"] as? [Any])
        #expect(list.count == 2 && list[0] as? Int == 1 && list[1] as? String == "a")
        let data = try JSONSerialization.data(withJSONObject: json.foundationValue, options: [.sortedKeys])
        #expect(try JSON(parsing: data) == json, "JSONSerialization takes it back")
    }
}
