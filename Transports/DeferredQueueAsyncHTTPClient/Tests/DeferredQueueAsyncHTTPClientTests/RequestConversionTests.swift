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
    @Test(arguments: [false, true])
    func repeatedFieldsAreJoinedUnderTheFirstSpellingInAnyCase(manyFields: Bool) throws {
        var headers = HTTPHeaders([("Set-Cookie", "a=1"), ("Content-Type", "text/plain"), ("set-cookie", "b=2"), ("SET-COOKIE", "c=3")])
        // Past the pairwise limit, the dictionary of lower-cased names takes over.
        if manyFields {
            for index in 0..<RequestConversion.pairwiseFieldLimit { headers.add(name: "X-Filler-\(index)", value: "\(index)") }
        }
        let fields = RequestConversion.headerFields(headers)
        #expect(fields["Set-Cookie"] == "a=1, b=2, c=3")
        #expect(fields["set-cookie"] == nil && fields["SET-COOKIE"] == nil)
        #expect(fields["Content-Type"] == "text/plain")
        #expect(fields.count == 2 + (manyFields ? RequestConversion.pairwiseFieldLimit : 0))
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
        let response = try #require(RequestConversion.response(head, url: URL(string: "http://127.0.0.1/")!))
        #expect(response.value(forHTTPHeaderField: "set-cookie") == "a=1, b=2, c=3")
        #expect(response.mimeType == "text/plain")
    }

    @Test func namesAreComparedIgnoringTheCaseOfLettersOnly() {
        #expect("Content-Type".isEqualIgnoringASCIICase(to: "cONTENT-tYPE"))
        #expect("X-A1".isEqualIgnoringASCIICase(to: "x-a1"))
        #expect(!"Content-Type".isEqualIgnoringASCIICase(to: "Content-Typ"))
        // Bytes that differ only in the 0x20 bit but are not letters.
        #expect(!"a-b".isEqualIgnoringASCIICase(to: "a\rb"))
        #expect(!"[".isEqualIgnoringASCIICase(to: "{"))
        #expect(!"@".isEqualIgnoringASCIICase(to: "`"))
        #expect(!"é".isEqualIgnoringASCIICase(to: "É"), "only ASCII letters fold")
    }

    @Test func theNoOpTracerIsLeftOutAndABootstrappedOneKept() {
        var configuration = HTTPClient.Configuration()
        configuration.tracing.tracer = NoOpTracer()
        #expect(ClientSetup.transportConfiguration(from: configuration).tracing.tracer == nil)
        configuration.tracing.tracer = ForwardingTracer()
        #expect(ClientSetup.transportConfiguration(from: configuration).tracing.tracer is ForwardingTracer)
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
