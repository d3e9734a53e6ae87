import DeferredQueue
import DeferredQueueTesting
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLEncoding` and `JSONEncoding`: Alamofire's untyped `Parameters`.
@Suite("ParameterEncoding: URLEncoding and JSONEncoding of [String: Any]")
struct ParameterEncodingTests {
    private let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

    @Test func aGETPutsSortedEscapedPairsInTheQueryAfterTheExistingOne() throws {
        let parameters: Parameters = [
            "q": "swift & linux", "page": 2, "on": true, "tags": ["a", "b"], "user": ["name": "Zoë", "age": 30] as Parameters,
        ]
        let request = try URLEncoding.default.encode(encodingTestRequest("https://example.com/get?x=1"), with: parameters)
        #expect(request.queryAsSent
            == "x=1&on=1&page=2&q=swift%20%26%20linux&tags%5B%5D=a&tags%5B%5D=b&user%5Bage%5D=30&user%5Bname%5D=Zo%C3%AB")
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func otherMethodsGetAFormBodyAndTheDestinationCanBeForced() throws {
        let post = try URLEncoding.default.encode(encodingTestRequest(method: "POST"), with: ["a": 1, "b": "x y"])
        #expect(post.bodyAsText == "a=1&b=x%20y")
        #expect(post.value(forHTTPHeaderField: "Content-Type") == formContentType)
        #expect(post.url?.query == nil)

        var typed = encodingTestRequest(method: "PUT")
        typed.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        #expect(try URLEncoding.default.encode(typed, with: ["a": 1]).value(forHTTPHeaderField: "Content-Type") == "text/plain")

        let inQuery = try URLEncoding.queryString.encode(encodingTestRequest(method: "POST"), with: ["a": 1])
        #expect(inQuery.queryAsSent == "a=1")
        #expect(inQuery.httpBody == nil)
        let inBody = try URLEncoding.httpBody.encode(encodingTestRequest(method: "GET"), with: ["a": 1])
        #expect(inBody.bodyAsText == "a=1")
        for method in ["HEAD", "DELETE"] {
            #expect(try URLEncoding.default.encode(encodingTestRequest(method: method), with: ["a": 1]).queryAsSent == "a=1")
        }
    }

    @Test func arraysAndBoolsFollowTheirEncodings() throws {
        let parameters: Parameters = ["k": ["x", "y"], "t": true, "f": NSNumber(value: false), "n": 1]
        func query(_ encoding: URLEncoding) throws -> String? {
            try encoding.encode(encodingTestRequest(), with: parameters).queryAsSent
        }
        #expect(try query(URLEncoding(arrayEncoding: .noBrackets)) == "f=0&k=x&k=y&n=1&t=1")
        #expect(try query(URLEncoding(arrayEncoding: .indexInBrackets)) == "f=0&k%5B0%5D=x&k%5B1%5D=y&n=1&t=1")
        #expect(try query(URLEncoding(arrayEncoding: .custom { key, index in "\(key).\(index)" }, boolEncoding: .literal))
            == "f=false&k.0=x&k.1=y&n=1&t=true", "an NSNumber holding a Bool is a Bool; 1 stays a number")
        #expect(URLEncoding.default.queryComponents(fromKey: "a b", value: ["c": 1]).map { "\($0)=\($1)" } == ["a%20b%5Bc%5D=1"])
        #expect(URLEncoding.default.escape("ä/?#") == "%C3%A4/?%23")
    }

    /// Alamofire's `testURLParameterLiteralBoolEncodingWorksAndDoesNotAffectNumbers`:
    /// Apple platforms write an integral `Double` as `1`; corelibs' `NSNumber`
    /// wrote `1.0`, so a query differed by platform.
    @Test func integralFloatingPointNumbersAreWrittenAsOnApplePlatforms() throws {
        let parameters: Parameters = [
            "a": 1, "c": 1.0, "d": 0.0, "e": NSNumber(value: 1), "g": NSNumber(value: 1.0), "h": NSNumber(value: 0.0),
            "m": -2.0, "n": Float(3), "o": 1.5, "p": 0.1, "q": 1e300, "i": true, "k": NSNumber(value: true),
            // A `Decimal`'s digits are exact: never rounded through a `Double`.
            "r": Decimal(string: "1234567890123.0001")!,
        ]
        let query = try URLEncoding(boolEncoding: .literal).encode(encodingTestRequest(), with: parameters).queryAsSent
        #expect(query == "a=1&c=1&d=0&e=1&g=1&h=0&i=true&k=true&m=-2&n=3&o=1.5&p=0.1&q=1e%2B300&r=1234567890123.0001")
    }

    @Test func nilParametersLeaveTheRequestAloneAndEmptyOnesAddNothingToTheQuery() throws {
        let request = encodingTestRequest("https://example.com/get?x=1")
        #expect(try URLEncoding.default.encode(request, with: nil) == request)
        #expect(try URLEncoding.default.encode(request, with: [:]).url == request.url)
        #expect(try JSONEncoding.default.encode(request, with: nil) == request)
    }

    @Test func jsonEncodingWritesTheBodyAndTheContentType() throws {
        let request = try JSONEncoding.default.encode(
            encodingTestRequest(method: "POST"), with: ["name": "pen", "tags": ["a"], "count": 2, "none": NSNull()]
        )
        let body = try #require(request.httpBody)
        let decoded = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(decoded["name"] as? String == "pen")
        #expect(decoded["tags"] as? [String] == ["a"])
        #expect(decoded["count"] as? Int == 2)
        #expect(decoded["none"] is NSNull)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let pretty = try JSONEncoding.prettyPrinted.encode(encodingTestRequest(method: "POST"), with: ["a": 1])
        #expect(pretty.bodyAsText?.contains("\n") == true)
        let array = try JSONEncoding.default.encode(encodingTestRequest(method: "POST"), withJSONObject: [1, 2])
        #expect(array.bodyAsText == "[1,2]")
    }

    /// Each level of nesting recurses: beyond 100 levels the encoding fails
    /// instead of overflowing the stack (10,000 levels did; 500 prove the limit).
    @Test func parametersNestedTooDeepFailInsteadOfOverflowingTheStack() throws {
        var deep: any Any & Sendable = 1
        for _ in 0..<500 { deep = [deep] as [any Any & Sendable] }
        for method in ["GET", "POST"] {
            let reason = parameterEncodingFailure { try URLEncoding.default.encode(encodingTestRequest(method: method), with: ["a": deep]) }
            guard case .urlEncodingFailed(let error)? = reason else {
                Issue.record("\(method): \(String(describing: reason))")
                continue
            }
            #expect("\(HTTPError.parameterEncodingFailed(reason: try #require(reason)))".contains("nested more than 100 levels"), "\(error)")
        }
        #expect(URLEncoding.default.queryComponents(fromKey: "a", value: ["x": 1, "y": deep, "z": 2]).isEmpty, "no pairs, not some")
        var shallow: any Any & Sendable = 1
        for _ in 0..<100 { shallow = ["k": shallow] as [String: any Any & Sendable] }
        let encoded = try URLEncoding.default.encode(encodingTestRequest(), with: ["a": shallow])
        #expect(encoded.url?.query?.hasSuffix("=1") == true, "100 levels are encoded")
    }

    @Test func valuesJSONCannotHoldFailClearlyInsteadOfCrashing() {
        for parameters: Parameters in [["when": Date()], ["n": Double.nan], ["inf": Double.infinity], ["x": URL(string: "https://a.b")!]] {
            let reason = parameterEncodingFailure { try JSONEncoding.default.encode(encodingTestRequest(method: "POST"), with: parameters) }
            guard case .jsonEncodingFailed(let error)? = reason else {
                Issue.record("\(parameters): \(String(describing: reason))")
                continue
            }
            #expect(error as? JSONEncoding.Error == .invalidJSONObject)
        }
    }

    /// A custom encoding's own error, and what it throws as Alamofire's
    /// users do, reach the handlers as `customEncodingFailed`.
    @Test func aCustomEncodingsErrorIsCustomEncodingFailed() async throws {
        struct Refused: Error {}
        struct Throwing: ParameterEncoding {
            let wrapped: Bool
            func encode(_ urlRequest: any URLRequestConvertible, with parameters: Parameters?) throws -> URLRequest {
                throw wrapped ? HTTPError.parameterEncodingFailed(reason: .customEncodingFailed(error: Refused())) : Refused()
            }
        }
        let session = Session(transport: MockTransport { _ in .text("unreached") })
        for wrapped in [false, true] {
            let result = await session.request("http://api.invalid/", parameters: ["a": 1], encoding: Throwing(wrapped: wrapped))
                .serializingData().result
            guard case .parameterEncodingFailed(.customEncodingFailed(let error))? = result.failure?.asHTTPError else {
                Issue.record("wrapped: \(wrapped): \(String(describing: result.failure))")
                continue
            }
            #expect(error is Refused)
            #expect(result.failure?.asHTTPError?.description.contains("custom parameter encoding failed") == true)
        }
    }
}
