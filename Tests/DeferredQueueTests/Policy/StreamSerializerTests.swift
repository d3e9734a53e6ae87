import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Alamofire's stream handlers: serialized chunks, failures per chunk,
/// throwing handlers and cancellation tokens. The session's, on MockTransport.
@Suite("Stream handlers: serializers, throwing handlers, tokens")
struct StreamSerializerTests {
    struct Tick: Decodable, Equatable, Sendable {
        let n: Int
    }

    static func session(_ chunks: [String]) -> Session {
        Session(transport: MockTransport(replying: .chunks(chunks.map { Data($0.utf8) })))
    }

    @Test func chunksArriveAsTextOrDecodedValuesInOrder() async throws {
        let strings = StreamEventLog<String, Never>()
        let ticks = StreamEventLog<Tick, HTTPError>()
        // One handler each: the first handler starts the stream.
        let session = Self.session([#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
        session.streamRequest("https://stream.invalid/").responseStreamString(on: handlerQueue) { strings.record($0) }
        session.streamRequest("https://stream.invalid/").responseStreamDecodable(of: Tick.self, on: handlerQueue) { ticks.record($0) }
        #expect(await strings.done.wait())
        #expect(await ticks.done.wait())
        #expect(strings.values.events == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#])
        #expect(ticks.values.events == [Tick(n: 1), Tick(n: 2), Tick(n: 3)])
        #expect(ticks.completions.events.first?.error == nil)
    }

    /// Handlers chained in the statement that starts a stream all get its
    /// first chunk: the first attempt waits one turn of the callback queue
    /// (here held still, so the order cannot be luck), where it went out
    /// from the first handler's thread and could answer before the second
    /// handler was added.
    @Test func handlersChainedInOneStatementAllGetTheFirstChunk() async throws {
        let transport = MockTransport(replying: .chunks([Data("first".utf8), Data("second".utf8)]))
        let session = Session(transport: transport)
        let first = StreamEventLog<String, Never>()
        let second = StreamEventLog<String, Never>()
        transport.callbackQueue.suspend()
        session.streamRequest("https://stream.invalid/")
            .responseStreamString(on: handlerQueue) { first.record($0) }
            .responseStreamString(on: handlerQueue) { second.record($0) }
        #expect(transport.requests.isEmpty, "the first attempt waits for the callback queue")
        transport.callbackQueue.resume()
        #expect(await first.done.wait())
        #expect(await second.done.wait())
        #expect(first.values.events.joined() == "firstsecond")
        #expect(second.values.events.joined() == "firstsecond")
    }

    @Test func aChunkTheSerializerRefusesIsThatChunksFailureAndMayCancel() async throws {
        let lenient = StreamEventLog<Tick, HTTPError>()
        Self.session([#"{"n":1}"#, "oops", #"{"n":3}"#]).streamRequest("https://stream.invalid/")
            .responseStream(using: .decodable(of: Tick.self), on: handlerQueue) { lenient.record($0) }
        #expect(await lenient.done.wait())
        #expect(lenient.values.events == [Tick(n: 1), Tick(n: 3)])
        #expect(lenient.failures.count == 1)
        #expect(lenient.completions.events.first?.error == nil, "a failed chunk alone does not end the stream")

        let strict = StreamEventLog<Tick, HTTPError>()
        Self.session([#"{"n":1}"#, "oops", #"{"n":3}"#]).streamRequest("https://stream.invalid/", automaticallyCancelOnStreamError: true)
            .responseStream(using: .decodable(of: Tick.self), on: handlerQueue) { strict.record($0) }
        #expect(await strict.done.wait())
        #expect(strict.values.events == [Tick(n: 1)])
        #expect(strict.completions.events.first?.error?.isCancelled == true)
    }

    struct Stop: Error, Equatable {}

    @Test func aThrowingHandlerEndsTheStreamWithItsError() async throws {
        let log = StreamEventLog<Data, Never>()
        let request = Self.session(["a", "b", "c"]).streamRequest("https://stream.invalid/")
        request.responseStream(on: handlerQueue) { stream in
            log.record(stream)
            if stream.value == Data("a".utf8) { throw Stop() }
        }
        #expect(await log.done.wait())
        let error = try #require(log.completions.events.first?.error)
        #expect(error.underlyingError as? Stop == Stop(), "\(error)")
        #expect(log.values.count < 3)
    }

    @Test func aTokenCancelsTheRequestFromTheHandler() async throws {
        let log = StreamEventLog<String, Never>()
        Self.session(["a", "b", "c"]).streamRequest("https://stream.invalid/")
            .responseStreamString(on: handlerQueue) { stream in
                log.record(stream)
                if stream.value == "a" { stream.cancel() }
            }
        #expect(await log.done.wait())
        #expect(log.completions.events.first?.error?.isCancelled == true)
        #expect(log.values.events.first == "a")
    }

    @Test func passthroughAndStringSerializersHandOverTheChunk() throws {
        #expect(try PassthroughStreamSerializer().serialize(Data([1, 2])) == Data([1, 2]))
        #expect(try StringStreamSerializer().serialize(Data([0x68, 0xFF])) == "h\u{FFFD}")
        #expect(throws: HTTPError.self) { try DecodableStreamSerializer<Tick>().serialize(Data("x".utf8)) }
    }

    /// Alamofire asks the retriers when a stream's validation refuses its
    /// head; the retried attempt's chunks are the stream.
    @Test func aStreamWhoseHeadIsRefusedAsksTheRetriers() async throws {
        let attempts = Counter()
        let transport = MockTransport { _ in
            attempts.increment() == 1 ? .chunks([Data("busy".utf8)], status: 503) : .chunks([Data("ok".utf8)])
        }
        let asked = Recorder<String>()
        let retrier = Retrier { request, _, error, completion in
            asked.append((error as? HTTPError)?.kind ?? "\(error)")
            completion(request.retryCount == 0 ? .retry : .doNotRetry)
        }
        let log = StreamEventLog<String, Never>()
        Session(transport: transport).streamRequest("https://stream.invalid/", interceptor: retrier)
            .validate()
            .responseStreamString(on: handlerQueue) { log.record($0) }
        #expect(await log.done.wait())
        #expect(asked.events == ["status(503)"])
        #expect(log.values.events == ["ok"], "the refused attempt's body never reaches the handler")
        #expect(log.completions.events.first?.error == nil)

        // Not retried: the stream ends with the validation error.
        let refused = StreamEventLog<String, Never>()
        Session(transport: MockTransport(replying: .chunks([Data("busy".utf8)], status: 503)))
            .streamRequest("https://stream.invalid/").validate()
            .responseStreamString(on: handlerQueue) { refused.record($0) }
        #expect(await refused.done.wait())
        #expect(refused.values.count == 0)
        #expect(refused.completions.events.first?.error?.kind == "status(503)")
    }

    // MARK: - DataStreamTask

    @Test func aStreamTaskYieldsEveryEventThenEnds() async throws {
        let task = Self.session([#"{"n":1}"#, #"{"n":2}"#]).streamRequest("https://stream.invalid/").streamTask()
        var values: [Tick] = []
        var completions = 0
        for await event in task.streamingDecodables(Tick.self) {
            if let value = event.value { values.append(value) }
            if event.completion != nil { completions += 1 }
        }
        #expect(values == [Tick(n: 1), Tick(n: 2)])
        #expect(completions == 1)

        var strings: [String] = []
        for await event in Self.session(["a", "b"]).streamRequest("https://stream.invalid/").streamTask().streamingStrings() {
            if let value = event.value { strings.append(value) }
        }
        #expect(strings == ["a", "b"])
    }

    @Test func leavingTheLoopEarlyCancelsTheRequest() async throws {
        // One chunk, then nothing: the stream ends only if the loop's end cancels it.
        let transport = MockTransport(replying: MockReply(steps: [.head(status: 200, headers: [:]), .chunk(Data("a".utf8)), .wait(.infinity)]))
        let request = Session(transport: transport).streamRequest("https://stream.invalid/", timeout: .infinity)
        for await event in request.streamTask().streamingData() {
            if event.value != nil { break }
        }
        #expect(request.isCancelled, "the iterator's end cancels at once")

        let kept = Session(transport: transport).streamRequest("https://stream.invalid/", timeout: .infinity)
        for await event in kept.streamTask().streamingData(automaticallyCancelling: false) {
            if event.value != nil { break }
        }
        #expect(kept.isResumed && !kept.isCancelled)
        kept.cancel()
    }
}

