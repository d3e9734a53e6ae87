import DeferredQueue
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("URLEncodedFormParameterEncoder")
struct URLEncodedFormParameterEncoderTests {
    private let formContentType = "application/x-www-form-urlencoded; charset=utf-8"

    private struct Query: Encodable, Sendable {
        let foo = "bar"
        let baz = ["a", "b"]
        let qux = ["x": 1, "y": 2, "z": 3]
    }

    // MARK: Destination

    @Test func aGETPutsTheFormInTheQuery() throws {
        let request = try URLEncodedFormParameterEncoder.default.encode(["foo": "bar"], into: encodingTestRequest())
        #expect(request.url?.absoluteString == "https://example.com/get?foo=bar")
        #expect(request.httpBody == nil)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == nil)
    }

    @Test func theQuerySendsTheEncodersBracketsPercentEncoded() throws {
        let request = try URLEncodedFormParameterEncoder.default.encode(Query(), into: encodingTestRequest())
        #expect(request.url?.absoluteString
            == "https://example.com/get?baz%5B%5D=a&baz%5B%5D=b&foo=bar&qux%5Bx%5D=1&qux%5By%5D=2&qux%5Bz%5D=3")
        #expect(request.url?.query(percentEncoded: false) == "baz[]=a&baz[]=b&foo=bar&qux[x]=1&qux[y]=2&qux[z]=3")
    }

    @Test func headAndDeleteUseTheQueryAndOtherMethodsTheBody() throws {
        for method in ["GET", "HEAD", "DELETE"] {
            let request = try URLEncodedFormParameterEncoder.default.encode(["a": 1], into: encodingTestRequest(method: method))
            #expect(request.queryAsSent == "a=1", "\(method)")
            #expect(request.httpBody == nil, "\(method)")
        }
        for method in ["POST", "PUT", "PATCH", "OPTIONS"] {
            let request = try URLEncodedFormParameterEncoder.default.encode(["a": 1], into: encodingTestRequest(method: method))
            #expect(request.queryAsSent == nil, "\(method)")
            #expect(request.bodyAsText == "a=1", "\(method)")
            #expect(request.value(forHTTPHeaderField: "Content-Type") == formContentType, "\(method)")
        }
    }

    @Test func aPOSTBodyIsTheUsageGuidesFormWithTheFormContentType() throws {
        let parameters: [String: [String]] = ["foo": ["bar"], "baz": ["a", "b"], "qux": ["x", "y", "z"]]
        let request = try URLEncodedFormParameterEncoder.default.encode(parameters, into: encodingTestRequest(method: "POST"))
        #expect(request.bodyAsText == "baz%5B%5D=a&baz%5B%5D=b&foo%5B%5D=bar&qux%5B%5D=x&qux%5B%5D=y&qux%5B%5D=z")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == formContentType)
        #expect(request.url?.absoluteString == "https://example.com/get")
    }

    @Test func anExistingContentTypeIsKept() throws {
        var request = encodingTestRequest(method: "POST")
        request.setValue("type", forHTTPHeaderField: "content-type")
        let encoded = try URLEncodedFormParameterEncoder.default.encode(["property": "property"], into: request)
        #expect(encoded.value(forHTTPHeaderField: "Content-Type") == "type")
        #expect(encoded.bodyAsText == "property=property")
    }

    @Test func theDestinationCanForceTheQueryOrTheBody() throws {
        let query = URLEncodedFormParameterEncoder(destination: .queryString)
        let post = try query.encode(["property": "property"], into: encodingTestRequest(method: "POST"))
        #expect(post.queryAsSent == "property=property")
        #expect(post.httpBody == nil)

        let body = URLEncodedFormParameterEncoder(destination: .httpBody)
        let get = try body.encode(["property": "property"], into: encodingTestRequest())
        #expect(get.queryAsSent == nil)
        #expect(get.bodyAsText == "property=property")
        #expect(get.value(forHTTPHeaderField: "Content-Type") == formContentType)
    }

    // MARK: Query handling

    @Test func anExistingQueryIsKeptAsItIsAndExtended() throws {
        let request = encodingTestRequest("https://example.com/get?a=%20b&c=%3D#top")
        let encoded = try URLEncodedFormParameterEncoder.default.encode(["foo": "bar"], into: request)
        #expect(encoded.url?.absoluteString == "https://example.com/get?a=%20b&c=%3D&foo=bar#top")
    }

    @Test func reservedCharactersSurviveTheRoundTripThroughTheQuery() throws {
        let value = ":#[]@!$&'()*+,;= é/?"
        let encoded = try URLEncodedFormParameterEncoder.default.encode(["key[0]": [value]], into: encodingTestRequest())
        #expect(encoded.queryAsSent == "key%5B0%5D%5B%5D=%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D%20%C3%A9/?")
        let items = try #require(encoded.url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems })
        #expect(items == [URLQueryItem(name: "key[0][]", value: value)])
    }

    @Test func anEmptyFormLeavesTheURLAlone() throws {
        let encoded = try URLEncodedFormParameterEncoder(destination: .queryString).encode([String: String](), into: encodingTestRequest())
        #expect(encoded.url?.absoluteString == "https://example.com/get")
        #expect(encoded.queryAsSent == nil)
    }

    @Test func nilParametersLeaveTheRequestUnchanged() throws {
        let request = encodingTestRequest(method: "POST")
        let encoded = try URLEncodedFormParameterEncoder.default.encode(nil as [String: String]?, into: request)
        #expect(encoded == request)
    }

    @Test func theFormEncodersOptionsApply() throws {
        let encoder = URLEncodedFormParameterEncoder(encoder: URLEncodedFormEncoder(boolEncoding: .literal, spaceEncoding: .plusReplaced))
        let get = try encoder.encode(["bool": true], into: encodingTestRequest())
        #expect(get.queryAsSent == "bool=true")
        let post = try encoder.encode(["text": "a b"], into: encodingTestRequest(method: "POST"))
        #expect(post.bodyAsText == "text=a+b")
    }

    // MARK: Failures

    @Test func aValueTheFormCannotHoldFailsWithURLEncodingFailed() throws {
        let reason = parameterEncodingFailure { try URLEncodedFormParameterEncoder.default.encode([1, 2], into: encodingTestRequest()) }
        guard case .urlEncodingFailed(let error)? = reason else {
            Issue.record("expected urlEncodingFailed, got \(String(describing: reason))")
            return
        }
        #expect(error is EncodingError)
        let description = HTTPError.parameterEncodingFailed(reason: try #require(reason)).description
        #expect(description.hasPrefix("The parameters could not be URL-encoded: the top-level value must be"))
        #expect(description.contains("Array<Int> encodes as an array"))
    }

    @Test func anErrorFromACustomEncodingIsTheUnderlyingError() throws {
        struct Refused: Error {}
        let encoder = URLEncodedFormParameterEncoder(encoder: URLEncodedFormEncoder(dateEncoding: .custom { _ in throw Refused() }))
        do {
            _ = try encoder.encode(["when": Date()], into: encodingTestRequest())
            Issue.record("expected a failure")
        } catch let error as HTTPError {
            #expect(error.underlyingError is Refused)
            if case .parameterEncodingFailed(.urlEncodingFailed) = error {} else { Issue.record("got \(error)") }
        }
    }

    @Test func aQueryWithoutAURLFailsWithMissingURL() throws {
        var request = encodingTestRequest()
        request.url = nil
        let reason = parameterEncodingFailure { try URLEncodedFormParameterEncoder.default.encode(["a": 1], into: request) }
        guard case .missingURL? = reason else {
            Issue.record("expected missingURL, got \(String(describing: reason))")
            return
        }
        #expect(HTTPError.parameterEncodingFailed(reason: .missingURL).description.contains("has no URL"))
        #expect(HTTPError.parameterEncodingFailed(reason: .missingURL).underlyingError == nil)
    }

    /// An `Encodable` nested deeper than 100 levels fails instead of
    /// overflowing the stack (a chain of 6,000 did, on the main thread; 500 prove the limit).
    @Test func aValueNestedTooDeepFailsInsteadOfOverflowingTheStack() throws {
        final class Node: Encodable, Sendable {
            let value = 1
            let next: Node?
            init(_ next: Node?) { self.next = next }
        }
        var chain: Node? = nil
        for _ in 0..<500 { chain = Node(chain) }
        let root = try #require(chain)
        let reason = parameterEncodingFailure {
            try URLEncodedFormParameterEncoder.default.encode(root, into: encodingTestRequest(method: "POST"))
        }
        guard case .urlEncodingFailed(let error)? = reason else {
            Issue.record("\(String(describing: reason))")
            return
        }
        #expect("\(HTTPError.parameterEncodingFailed(reason: try #require(reason)))".contains("nested more than 100 levels"), "\(error)")
    }

    /// Depth counts `encode(to:)` calls, not the coding path: a value that
    /// encodes the next through a single-value container lengthens no path.
    @Test func aValueNestedThroughSingleValueContainersFailsToo() throws {
        final class Wrapper: Encodable, Sendable {
            let inner: Wrapper?
            init(_ inner: Wrapper?) { self.inner = inner }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                if let inner { try container.encode(inner) } else { try container.encode("end") }
            }
        }
        struct Root: Encodable, Sendable { let value: Wrapper }
        var chain: Wrapper? = nil
        for _ in 0..<500 { chain = Wrapper(chain) }
        let reason = parameterEncodingFailure {
            try URLEncodedFormParameterEncoder.default.encode(Root(value: try #require(chain)), into: encodingTestRequest(method: "POST"))
        }
        guard case .urlEncodingFailed? = reason else {
            Issue.record("\(String(describing: reason))")
            return
        }
        var shallow: Wrapper? = nil
        for _ in 0..<50 { shallow = Wrapper(shallow) }
        let encoded = try URLEncodedFormParameterEncoder.default.encode(Root(value: try #require(shallow)), into: encodingTestRequest(method: "POST"))
        #expect(encoded.bodyAsText == "value=end")
    }
}
