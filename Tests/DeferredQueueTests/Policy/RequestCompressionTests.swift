import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// `DeflateRequestCompressor`: what goes on the wire, judged on MockTransport's record.
@Suite("DeflateRequestCompressor: deflated bodies, Content-Encoding, duplicates")
struct RequestCompressionTests {
    static var body: Data { Data(String(repeating: "compress me, ", count: 200).utf8) }

    static func inflate(_ data: Data) throws -> Data {
        let decoder = try #require(try ContentDecoder(contentEncoding: "deflate"))
        decoder.feed(data)
        var output = Data()
        while let piece = try decoder.read(upTo: 4096) { output.append(piece) }
        try decoder.finish()
        return output
    }

    /// Sends `body` with `headers` through `compressor`; the request as sent and the error, if any.
    static func send(
        _ compressor: DeflateRequestCompressor, headers: HTTPHeaders = [:], body: Data? = RequestCompressionTests.body
    ) async -> (sent: URLRequest?, error: HTTPError?) {
        let fixture = PolicyFixture { _ in .json(#"{"ok":true}"#) }
        let request = fixture.makeSession(interceptor: compressor)
            .request(fixture.url("/upload"), method: .post, headers: headers, body: body)
        let error = await response { request.responseData(queue: handlerQueue, completionHandler: $0) }?.error
        return (fixture.requests.first, error)
    }

    @Test func aBodyGoesDeflatedInZlibsFormatWithItsContentEncoding() async throws {
        let (sent, error) = await Self.send(.deflateCompressor)
        #expect(error == nil)
        let wire = try #require(sent?.httpBody)
        #expect(sent?.value(forHTTPHeaderField: "Content-Encoding") == "deflate")
        #expect(wire.count < Self.body.count / 10, "deflated: \(wire.count) bytes")
        #expect(wire.first == 0x78, "a zlib header")
        #expect(try Self.inflate(wire) == Self.body)
    }

    @Test func anExistingContentEncodingFailsIsReplacedOrSkipped() async throws {
        let headers: HTTPHeaders = [.contentEncoding("gzip")]
        let failed = await Self.send(.deflateCompressor, headers: headers)
        #expect(failed.sent == nil, "nothing sent")
        #expect(failed.error?.underlyingError is DeflateRequestCompressor.DuplicateHeaderError, "\(String(describing: failed.error))")

        let replaced = await Self.send(.deflateCompressor(duplicateHeaderBehavior: .replace), headers: headers)
        #expect(replaced.sent?.value(forHTTPHeaderField: "Content-Encoding") == "deflate")
        #expect(try Self.inflate(try #require(replaced.sent?.httpBody)) == Self.body)

        let skipped = await Self.send(.deflateCompressor(duplicateHeaderBehavior: .skip), headers: headers)
        #expect(skipped.sent?.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
        #expect(skipped.sent?.httpBody == Self.body)
    }

    @Test func noBodyOrARefusingPredicateLeavesTheRequestAlone() async throws {
        let declined = await Self.send(.deflateCompressor { _ in false })
        #expect(declined.sent?.httpBody == Self.body)
        #expect(declined.sent?.value(forHTTPHeaderField: "Content-Encoding") == nil)

        let empty = await Self.send(.deflateCompressor, body: nil)
        #expect(empty.error == nil)
        #expect(empty.sent?.value(forHTTPHeaderField: "Content-Encoding") == nil)
    }

    @Test func theNamedHeaderFieldsAreAlamofires() {
        let fields: [HTTPHeader] = [
            .acceptCharset("utf-8"), .acceptLanguage("en"), .acceptEncoding("gzip"), .authorization("Token abc"),
            .contentDisposition("attachment"), .contentEncoding("deflate"), .websocketProtocol("chat"),
        ]
        #expect(fields.map(\.name) == [
            "Accept-Charset", "Accept-Language", "Accept-Encoding", "Authorization",
            "Content-Disposition", "Content-Encoding", "Sec-WebSocket-Protocol",
        ])
        let headers = HTTPHeaders(fields)
        #expect(headers.value(for: "authorization") == "Token abc")
        #expect(headers.value(for: "X-Missing") == nil)
    }
}
