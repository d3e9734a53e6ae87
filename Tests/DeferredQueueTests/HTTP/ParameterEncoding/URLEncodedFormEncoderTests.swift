import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Expected strings are the outputs Alamofire 5 gives for the same inputs (its
/// ParameterEncoderTests): the whole key path is escaped, its brackets included
/// (`a%5Bb%5D=c`), with one deliberate difference: the elements of an array keep their
/// order when pairs are sorted.
@Suite("URLEncodedFormEncoder")
struct URLEncodedFormEncoderTests {
    private func form(_ value: some Encodable, _ encoder: URLEncodedFormEncoder = URLEncodedFormEncoder()) throws -> String {
        try encoder.encode(value)
    }

    // MARK: Shapes

    @Test func aDictionaryBecomesKeyValuePairs() throws {
        #expect(try form(["a": "a"]) == "a=a")
        #expect(try form([String: String]()) == "")
    }

    @Test func theUsageGuideQueryExampleEncodesWithSortedKeysAndBrackets() throws {
        struct Query: Encodable {
            let foo = "bar"
            let baz = ["a", "b"]
            let qux = ["x": 1, "y": 2, "z": 3]
        }
        #expect(try form(Query()) == "baz%5B%5D=a&baz%5B%5D=b&foo=bar&qux%5Bx%5D=1&qux%5By%5D=2&qux%5Bz%5D=3")
    }

    @Test func theDocumentationExamplesHold() throws {
        struct Query: Encodable {
            let foo = "bar"
            let baz = ["a", "b"]
            let qux = ["x": 1, "y": 2, "z": 3]
            let note: String? = nil
        }
        #expect(try form(Query()) == "baz%5B%5D=a&baz%5B%5D=b&foo=bar&qux%5Bx%5D=1&qux%5By%5D=2&qux%5Bz%5D=3")
        struct Post: Encodable { let tags = ["a", "b"]; let draft = false }
        let encoder = URLEncodedFormEncoder(arrayEncoding: .noBrackets, boolEncoding: .literal)
        #expect(try form(Post(), encoder) == "draft=false&tags=a&tags=b")
    }

    @Test func theUsageGuideFormExampleEncodesEveryArray() throws {
        let parameters: [String: [String]] = ["foo": ["bar"], "baz": ["a", "b"], "qux": ["x", "y", "z"]]
        // Usage.md lists these pairs in dictionary order; sorted keys give this order every run.
        #expect(try form(parameters) == "baz%5B%5D=a&baz%5B%5D=b&foo%5B%5D=bar&qux%5B%5D=x&qux%5B%5D=y&qux%5B%5D=z")
    }

    @Test func nestedObjectsUseBracketedKeysTwoLevelsDeep() throws {
        #expect(try form(["a": ["b": "b"]]) == "a%5Bb%5D=b")
        #expect(try form(["a": ["b": ["c": "d"]]]) == "a%5Bb%5D%5Bc%5D=d")
        #expect(try form(FormSample()) == "five%5Ba%5D=a&four%5B%5D=1&four%5B%5D=2&four%5B%5D=3&one=one&seven%5Ba%5D=a&six%5Ba%5D%5Bb%5D=b&three=1&two=2")
    }

    @Test func keysKeepTheTypesOrderWhenAlphabetizingIsOff() throws {
        let encoder = URLEncodedFormEncoder(alphabetizeKeyValuePairs: false)
        #expect(try form(FormSample(), encoder) == "one=one&two=2&three=1&four%5B%5D=1&four%5B%5D=2&four%5B%5D=3&five%5Ba%5D=a&six%5Ba%5D%5Bb%5D=b&seven%5Ba%5D=a")
    }

    @Test func aSubclassAddsItsMembersToItsSuperclasses() throws {
        #expect(try form(Parent()) == "one=one&three=1&two=2")
        #expect(try form(Child()) == "five%5Ba%5D=a&five%5Bb%5D=b&four%5B%5D=1&four%5B%5D=2&four%5B%5D=3&one=one&three=1&two=2")
    }

    @Test func nilValuesAreLeftOut() throws {
        struct Optionals: Encodable {
            let present: String? = "yes"
            let absent: String? = nil
            let list: [Int?] = [1, nil, 3]
        }
        #expect(try form(Optionals()) == "list%5B%5D=1&list%5B%5D=3&present=yes")
        #expect(try form(["string": nil, "other": "x"] as [String: String?]) == "other=x")
        let indexed = URLEncodedFormEncoder(arrayEncoding: .indexInBrackets)
        #expect(try form(Optionals(), indexed) == "list%5B0%5D=1&list%5B2%5D=3&present=yes")
    }

    @Test func numbersUseTheirShortestDescription() throws {
        #expect(try form(["a": 1.0]) == "a=1.0")
        #expect(try form(["a": Float(1.0)]) == "a=1.0")
        #expect(try form(["a": Decimal(1)]) == "a=1")
        #expect(try form(["a": Decimal(string: "1.123456")]) == "a=1.123456")
        #expect(try form(["a": Int8(1)]) == "a=1")
        #expect(try form(["a": Int64.min]) == "a=-9223372036854775808")
        #expect(try form(["a": UInt64.max]) == "a=18446744073709551615")
        #expect(try form(["a": UInt16(1)]) == "a=1")
    }

    @Test func aURLValueIsItsAbsoluteString() throws {
        let url = try #require(URL(string: "https://example.com/a?b=c"))
        #expect(try form(["next": url]) == "next=https%3A//example.com/a?b%3Dc")
    }

    @Test func theDataVariantHoldsTheStringsUTF8Bytes() throws {
        let encoder = URLEncodedFormEncoder()
        let data: Data = try encoder.encode(["é": "a b"])
        #expect(data == Data("%C3%A9=a%20b".utf8))
    }

    // MARK: Arrays

    @Test func arraysCanRepeatTheKeyWithoutBrackets() throws {
        #expect(try form(["array": [1, 2]], URLEncodedFormEncoder(arrayEncoding: .noBrackets)) == "array=1&array=2")
    }

    @Test func arraysCanCarryTheirIndexInBrackets() throws {
        let encoder = URLEncodedFormEncoder(arrayEncoding: .indexInBrackets)
        #expect(try form(["foo": [["bar": 2], ["qux": 3], ["quy": 4]]], encoder) == "foo%5B0%5D%5Bbar%5D=2&foo%5B1%5D%5Bqux%5D=3&foo%5B2%5D%5Bquy%5D=4")
        #expect(try form(["foo": [Parent()]], encoder) == "foo%5B0%5D%5Bone%5D=one&foo%5B0%5D%5Bthree%5D=1&foo%5B0%5D%5Btwo%5D=2")
        #expect(try form(Child(), encoder) == "five%5Ba%5D=a&five%5Bb%5D=b&four%5B0%5D=1&four%5B1%5D=2&four%5B2%5D=3&one=one&three=1&two=2")
    }

    @Test func sortingNeverReordersTheElementsOfAnArray() throws {
        let indexed = try form(["n": Array(0..<12)], URLEncodedFormEncoder(arrayEncoding: .indexInBrackets))
        #expect(indexed == (0..<12).map { "n%5B\($0)%5D=\($0)" }.joined(separator: "&"))
        #expect(try form(["n": [3, 1, 2]]) == "n%5B%5D=3&n%5B%5D=1&n%5B%5D=2")
    }

    // MARK: Bool, Data, Date

    @Test func boolsAreNumericByDefaultOrLiteral() throws {
        #expect(try form(["bool": true, "off": false]) == "bool=1&off=0")
        #expect(try form(["bool": true, "off": false], URLEncodedFormEncoder(boolEncoding: .literal)) == "bool=true&off=false")
    }

    @Test func dataIsBase64ByDefault() throws {
        #expect(try form(["data": Data("data".utf8)]) == "data=ZGF0YQ%3D%3D")
        let deferred = URLEncodedFormEncoder(dataEncoding: .deferredToData)
        #expect(try form(["data": Data([1, 2])], deferred) == "data%5B%5D=1&data%5B%5D=2")
        let custom = URLEncodedFormEncoder(dataEncoding: .custom { "\($0.count) bytes" })
        #expect(try form(["data": Data([1, 2])], custom) == "data=2%20bytes")
    }

    @Test func everyDateEncodingWritesTheDocumentedText() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123.456)
        func encoded(_ encoding: URLEncodedFormEncoder.DateEncoding) throws -> String {
            try form(["date": date], URLEncodedFormEncoder(dateEncoding: encoding))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSSS"
        formatter.timeZone = TimeZone(secondsFromGMT: 0)

        #expect(try encoded(.deferredToDate) == "date=123.456")
        #expect(try encoded(.secondsSince1970) == "date=978307323.456")
        #expect(try encoded(.millisecondsSince1970) == "date=978307323456.0")
        #expect(try encoded(.iso8601) == "date=2001-01-01T00%3A02%3A03Z")
        #expect(try encoded(.formatted(formatter)) == "date=2001-01-01%2000%3A02%3A03.4560")
        #expect(try encoded(.custom { "\($0.timeIntervalSinceReferenceDate)" }) == "date=123.456")
    }

    @Test func anErrorThrownByACustomEncodingEndsTheEncoding() {
        struct Refused: Error {}
        let dates = URLEncodedFormEncoder(dateEncoding: .custom { _ in throw Refused() })
        #expect(throws: Refused.self) { try form(["date": Date()], dates) }
        let data = URLEncodedFormEncoder(dataEncoding: .custom { _ in throw Refused() })
        #expect(throws: Refused.self) { try form(["data": Data()], data) }
    }

    // MARK: Keys

    @Test func everyKeyEncodingConvertsCamelCase() throws {
        func key(_ encoding: URLEncodedFormEncoder.KeyEncoding) throws -> String {
            try form(["oneTwoThree": "oneTwoThree"], URLEncodedFormEncoder(keyEncoding: encoding))
        }
        #expect(try key(.useDefaultKeys) == "oneTwoThree=oneTwoThree")
        #expect(try key(.convertToSnakeCase) == "one_two_three=oneTwoThree")
        #expect(try key(.convertToKebabCase) == "one-two-three=oneTwoThree")
        #expect(try key(.capitalized) == "OneTwoThree=oneTwoThree")
        #expect(try key(.uppercased) == "ONETWOTHREE=oneTwoThree")
        #expect(try key(.lowercased) == "onetwothree=oneTwoThree")
        #expect(try key(.custom { _ in "A" }) == "A=oneTwoThree")
    }

    @Test func snakeCaseSplitsAcronymsAndKeepsUnderscores() {
        let snake = URLEncodedFormEncoder.KeyEncoding.convertToSnakeCase
        #expect(snake.encode("myURLProperty") == "my_url_property")
        #expect(snake.encode("userID") == "user_id")
        #expect(snake.encode("version2Beta") == "version2_beta")
        #expect(snake.encode("_private") == "_private")
        #expect(snake.encode("") == "")
    }

    @Test func keyEncodingAppliesToNestedKeysToo() throws {
        let encoder = URLEncodedFormEncoder(keyEncoding: .convertToSnakeCase)
        #expect(try form(["outerKey": ["innerKey": 1]], encoder) == "outer_key%5Binner_key%5D=1")
    }

    // MARK: Escaping

    @Test func reservedCharactersInValuesArePercentEscaped() throws {
        #expect(try form(["reserved": ":#[]@!$&'()*+,;="]) == "reserved=%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D")
        #expect(try form(["illegal": " \"#%<>[]\\^`{}|"]) == "illegal=%20%22%23%25%3C%3E%5B%5D%5C%5E%60%7B%7D%7C")
    }

    @Test func reservedCharactersInKeysAreEscapedAndSoAreTheKeyPathsBrackets() throws {
        #expect(try form(["foo&bar": "baz&qux", "foobar": "bazqux"]) == "foo%26bar=baz%26qux&foobar=bazqux")
        #expect(try form(["a[b]": ["c=d": "e"]]) == "a%5Bb%5D%5Bc%3Dd%5D=e")
    }

    @Test func unreservedCharactersQuestionMarksAndSlashesPassUnescaped() throws {
        let unreserved = ["lowercase": "abcdefghijklmnopqrstuvwxyz", "numbers": "0123456789", "symbols": "-._~"]
        #expect(try form(unreserved) == "lowercase=abcdefghijklmnopqrstuvwxyz&numbers=0123456789&symbols=-._~")
        #expect(try form(["?foo?": "?bar?"]) == "?foo?=?bar?")
        #expect(try form(["foo": "/bar/baz/qux"]) == "foo=/bar/baz/qux")
    }

    @Test func percentSignsAndPlusesAreEscaped() throws {
        #expect(try form(["percent%": "%25"]) == "percent%25=%2525")
        #expect(try form(["+foo+": "+bar+"]) == "%2Bfoo%2B=%2Bbar%2B")
    }

    @Test func spacesArePercentEscapedByDefaultOrReplacedByPluses() throws {
        #expect(try form([" foo ": " bar "]) == "%20foo%20=%20bar%20")
        let plus = URLEncodedFormEncoder(spaceEncoding: .plusReplaced)
        #expect(try form(["spaces": "replace with spaces"], plus) == "spaces=replace+with+spaces")
        #expect(try form(["sum": "1 + 1"], plus) == "sum=1+%2B+1")
    }

    @Test func nonLatinTextIsEscapedAsUTF8() throws {
        let parameters = ["french": "français", "japanese": "日本語", "arabic": "العربية", "emoji": "😃"]
        let expected = [
            "arabic=%D8%A7%D9%84%D8%B9%D8%B1%D8%A8%D9%8A%D8%A9", "emoji=%F0%9F%98%83",
            "french=fran%C3%A7ais", "japanese=%E6%97%A5%E6%9C%AC%E8%AA%9E",
        ].joined(separator: "&")
        #expect(try form(parameters) == expected)
        let long = String(repeating: "一二三四五六七八九十", count: 2000)
        let escaped = String(repeating: "%E4%B8%80%E4%BA%8C%E4%B8%89%E5%9B%9B%E4%BA%94%E5%85%AD%E4%B8%83%E5%85%AB%E4%B9%9D%E5%8D%81", count: 2000)
        #expect(try form(["chinese": long]) == "chinese=\(escaped)")
    }

    // MARK: Failures

    @Test func aTopLevelArrayOrSingleValueIsAnErrorNotACrash() {
        #expect(throws: EncodingError.self) { try form([1]) }
        #expect(throws: EncodingError.self) { try form(1) }
        #expect(throws: EncodingError.self) { try form("string") }
        #expect(throws: EncodingError.self) { try form(Date()) }
    }

    @Test func askingOneValueForTwoKindsOfContainerIsAnError() {
        struct Confused: Encodable {
            enum Key: CodingKey { case a }
            func encode(to encoder: any Encoder) throws {
                var keyed = encoder.container(keyedBy: Key.self)
                try keyed.encode(1, forKey: .a)
                var unkeyed = encoder.unkeyedContainer()
                try unkeyed.encode(2)
            }
        }
        #expect(throws: EncodingError.self) { try form(Confused()) }
        #expect(throws: EncodingError.self) { try form(["nested": Confused()]) }
    }

    @Test func oneEncoderCanBeSharedAcrossTasks() async throws {
        let encoder = URLEncodedFormEncoder(arrayEncoding: .indexInBrackets)
        let outputs = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask { try encoder.encode(["n": [index, index]]) }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(outputs == Set((0..<8).map { "n%5B0%5D=\($0)&n%5B1%5D=\($0)" }))
    }

    // MARK: Options Alamofire 5.12 added

    @Test func keyPathsJoinWithBracketsDotsOrAClosure() throws {
        let value = ["a": ["b": ["c": "d"]]]
        #expect(try form(value) == "a%5Bb%5D%5Bc%5D=d")
        #expect(try form(value, URLEncodedFormEncoder(keyPathEncoding: .dots)) == "a.b.c=d")
        #expect(try form(value, URLEncodedFormEncoder(keyPathEncoding: .init { "-\($0)" })) == "a-b-c=d")
        #expect(try form(["list": [["x": 1]]], URLEncodedFormEncoder(keyPathEncoding: .dots)) == "list%5B%5D.x=1",
                "arrays keep their own encoding")
    }

    @Test func nilIsLeftOutWrittenEmptyAsNullOrAsTheClosureSays() throws {
        struct Optionals: Encodable {
            let absent: String? = nil
            let number: Int? = nil
            let present = "yes"
        }
        #expect(try form(Optionals()) == "present=yes")
        #expect(try form(Optionals(), URLEncodedFormEncoder(nilEncoding: .dropValue)) == "absent=&number=&present=yes")
        #expect(try form(Optionals(), URLEncodedFormEncoder(nilEncoding: .null)) == "absent=null&number=null&present=yes")
        #expect(try form(Optionals(), URLEncodedFormEncoder(nilEncoding: .init { "-" })) == "absent=-&number=-&present=yes")
        #expect(try form(["d": nil] as [String: String?], URLEncodedFormEncoder(nilEncoding: .null)) == "d=null")
    }

    @Test func allowedCharactersDecideWhatIsEscaped() throws {
        #expect(try form(["k": "a:b c"]) == "k=a%3Ab%20c")
        var allowed = CharacterSet.afURLQueryAllowed
        allowed.insert(charactersIn: ":[]")
        let encoder = URLEncodedFormEncoder(spaceEncoding: .plusReplaced, allowedCharacters: allowed)
        struct Mixed: Encodable {
            let k = "a:b c"
            let l = ["m"]
        }
        #expect(try form(Mixed(), encoder) == "k=a:b+c&l[]=m")
    }

    @Test func anArraysKeysCanComeFromAClosure() throws {
        let encoder = URLEncodedFormEncoder(arrayEncoding: .custom { key, index in "\(key).\(index)" })
        #expect(try form(["n": [3, 1]], encoder) == "n.0=3&n.1=1")
    }

    @Test func theJSONEncoderAccessorHasADefaultEncoder() throws {
        var request = URLRequest(url: URL(string: "https://example.com")!)
        request.httpMethod = "POST"
        let encoder: JSONParameterEncoder = .json()
        let encoded = try encoder.encode(["a": 1], into: request)
        #expect(encoded.httpBody == Data(#"{"a":1}"#.utf8))
    }

}

private struct FormSample: Encodable {
    struct Nested: Encodable { let a = "a" }
    let one = "one"
    let two = 2
    let three = true
    let four = [1, 2, 3]
    let five = ["a": "a"]
    let six = ["a": ["b": "b"]]
    let seven = Nested()
}

private class Parent: Encodable {
    let one = "one"
    let two = 2
    let three = true
}

private final class Child: Parent {
    let four = [1, 2, 3]
    let five = ["a": "a", "b": "b"]

    private enum CodingKeys: String, CodingKey { case four, five }

    override func encode(to encoder: any Encoder) throws {
        try super.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(four, forKey: .four)
        try container.encode(five, forKey: .five)
    }
}
