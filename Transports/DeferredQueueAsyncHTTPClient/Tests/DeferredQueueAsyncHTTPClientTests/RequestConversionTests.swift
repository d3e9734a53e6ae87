import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOHTTP1
import Testing
import Tracing
@testable import DeferredQueueAsyncHTTPClient

/// What the transport builds from AsyncHTTPClient's types, and the
/// configuration of the client it creates.
@Suite("AsyncHTTPClientTransport: response heads and client configuration")
struct RequestConversionTests {
    /// The head keeps the fields as received; its `HTTPURLResponse` is made
    /// once, on first use, with repeated fields joined under their first
    /// spelling (as URLSession hands them over).
    @Test func aHeadKeepsItsFieldsAndMakesItsResponseOnceJoiningRepeats() throws {
        let headers = HTTPHeaders([("Set-Cookie", "a=1"), ("Content-Type", "text/plain"), ("set-cookie", "b=2"), ("SET-COOKIE", "c=3")])
        let head = RequestConversion.response(HTTPResponseHead(version: .http1_1, status: .created, headers: headers), url: URL(string: "http://127.0.0.1/")!)
        #expect(head.statusCode == 201)
        #expect(head.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2, c=3")
        let response = head.response
        #expect(response === head.response, "made once")
        #expect(response.statusCode == 201)
        #expect(response.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2, c=3")
        #expect(response.allHeaderFields.count == 2)
        #expect(response.mimeType == "text/plain")
    }

    /// The version a head's response is made with: the common ones spelled
    /// without building a string, any other as it came.
    @Test(arguments: [(1, 1, "HTTP/1.1"), (1, 0, "HTTP/1.0"), (2, 0, "HTTP/2.0"), (3, 0, "HTTP/3.0"), (0, 9, "HTTP/0.9")])
    func theVersionIsSpelledAsItCame(major: Int, minor: Int, spelled: String) {
        #expect(RequestConversion.versionString(HTTPVersion(major: major, minor: minor)) == spelled)
    }

    @Test func theNoOpTracerIsLeftOutAndABootstrappedOneKept() {
        var configuration = HTTPClient.Configuration()
        configuration.tracing.tracer = NoOpTracer()
        #expect(ClientSetup.transportConfiguration(from: configuration, negotiatesHTTP2: false).tracing.tracer == nil)
        configuration.tracing.tracer = ForwardingTracer()
        #expect(ClientSetup.transportConfiguration(from: configuration, negotiatesHTTP2: false).tracing.tracer is ForwardingTracer)
        // The transport's own client (HTTPClient.shared's configuration, no tracer bootstrapped here).
        let transport = AsyncHTTPClientTransport()
        #expect(transport.client.tracer == nil)
        transport.shutdown()
    }
}

/// A tracer that is not the no-op one (it forwards to it), as a process
/// that bootstrapped tracing would have.
private struct ForwardingTracer: Tracer {
    let base = NoOpTracer()

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> NoOpTracer.NoOpSpan {
        base.startSpan(operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID, line: line)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}
}
