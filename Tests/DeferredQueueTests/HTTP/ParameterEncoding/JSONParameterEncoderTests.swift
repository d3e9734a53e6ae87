import DeferredQueue
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("JSONParameterEncoder")
struct JSONParameterEncoderTests {
    private let usageGuideParameters: [String: [String]] = ["foo": ["bar"], "baz": ["a", "b"], "qux": ["x", "y", "z"]]

    @Test func theBodyIsJSONWithTheJSONContentType() throws {
        let request = try JSONParameterEncoder().encode(["property": "property"], into: encodingTestRequest(method: "POST"))
        #expect(request.bodyAsText == #"{"property":"property"}"#)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.httpMethod == "POST")
        #expect(request.url?.absoluteString == "https://example.com/get")
    }

    @Test func anExistingContentTypeIsKept() throws {
        var request = encodingTestRequest(method: "POST")
        request.setValue("type", forHTTPHeaderField: "Content-Type")
        let encoded = try JSONParameterEncoder.default.encode(["property": "property"], into: request)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "type")
        #expect(encoded.bodyAsText == #"{"property":"property"}"#)
    }

    @Test func theDefaultIsCompact() throws {
        let request = try JSONParameterEncoder.default.encode(["property": "property"], into: encodingTestRequest())
        #expect(request.bodyAsText == #"{"property":"property"}"#)
        #expect(request.url?.query == nil)
    }

    @Test func prettyPrintedIndentsEveryMember() throws {
        let request = try JSONParameterEncoder.prettyPrinted.encode(["property": "property"], into: encodingTestRequest())
        #expect(request.bodyAsText == "{\n  \"property\" : \"property\"\n}")
    }

    @Test func sortedKeysGivesTheUsageGuidesBody() throws {
        let request = try JSONParameterEncoder.sortedKeys.encode(usageGuideParameters, into: encodingTestRequest(method: "POST"))
        #expect(request.bodyAsText == #"{"baz":["a","b"],"foo":["bar"],"qux":["x","y","z"]}"#)
        let letters = try JSONParameterEncoder.sortedKeys.encode(["z": "z", "a": "a", "p": "p"], into: encodingTestRequest())
        #expect(letters.bodyAsText == #"{"a":"a","p":"p","z":"z"}"#)
    }

    @Test func aCustomJSONEncoderIsUsed() throws {
        struct Login: Encodable, Sendable {
            let emailAddress: String
            let createdAt: Date
        }
        let jsonEncoder = JSONEncoder()
        jsonEncoder.keyEncodingStrategy = .convertToSnakeCase
        jsonEncoder.dateEncodingStrategy = .secondsSince1970
        jsonEncoder.outputFormatting = .sortedKeys
        let login = Login(emailAddress: "test@test.test", createdAt: Date(timeIntervalSince1970: 10))
        let request = try JSONParameterEncoder(encoder: jsonEncoder).encode(login, into: encodingTestRequest(method: "POST"))
        #expect(request.bodyAsText == #"{"created_at":10,"email_address":"test@test.test"}"#)
    }

    @Test func eachStaticEncoderIsANewInstance() {
        #expect(JSONParameterEncoder.default.encoder !== JSONParameterEncoder.default.encoder)
        #expect(JSONParameterEncoder.prettyPrinted.encoder.outputFormatting == .prettyPrinted)
        #expect(JSONParameterEncoder.sortedKeys.encoder.outputFormatting == .sortedKeys)
    }

    @Test func nilParametersLeaveTheRequestUnchanged() throws {
        let request = encodingTestRequest(method: "POST")
        #expect(try JSONParameterEncoder.default.encode(nil as [String: Int]?, into: request) == request)
    }

    @Test func aValueJSONCannotHoldFailsWithJSONEncodingFailed() throws {
        let reason = parameterEncodingFailure {
            try JSONParameterEncoder.default.encode(["ratio": Double.nan], into: encodingTestRequest(method: "POST"))
        }
        guard case .jsonEncodingFailed(let error)? = reason else {
            Issue.record("expected jsonEncodingFailed, got \(String(describing: reason))")
            return
        }
        #expect(error is EncodingError)
        let failure = HTTPError.parameterEncodingFailed(reason: try #require(reason))
        #expect(failure.underlyingError is EncodingError)
        #expect(failure.description.hasPrefix("The parameters could not be encoded as JSON:"))
        #expect(failure.description.contains("Double.nan directly in JSON (at .ratio)"))
        #expect(failure.description.contains("JSON has no NaN or infinity"))
        #expect(!failure.description.contains(".."))
    }

    /// The NaN hint only where a NaN or an infinity was refused.
    @Test func anotherRefusedValueGetsNoNaNHint() throws {
        struct Refusing: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "Refused."))
            }
        }
        let reason = parameterEncodingFailure {
            try JSONParameterEncoder.default.encode(Refusing(), into: encodingTestRequest(method: "POST"))
        }
        let failure = HTTPError.parameterEncodingFailed(reason: try #require(reason))
        #expect(!failure.description.contains("NaN"), "\(failure)")
        #expect(failure.description.contains("Check the values"))
    }

    @Test func bothShippedEncodersWorkThroughTheProtocol() throws {
        let encoders: [any ParameterEncoder] = [JSONParameterEncoder.default, URLEncodedFormParameterEncoder.default]
        let bodies = try encoders.map { try $0.encode(["a": 1], into: encodingTestRequest(method: "POST")).bodyAsText }
        #expect(bodies == [#"{"a":1}"#, "a=1"])
    }
}
