import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// Serializers written by users: what they receive, how their errors arrive, and
/// `serializingResponse(using:)`. The session's, judged once, on MockTransport.
@Suite("Custom serializers: response(queue:responseSerializer:) and serializingResponse(using:)")
struct CustomSerializerTests {
    /// A new fixture per test: scripted replies, and a session on them.
    let fixture = PolicyFixture()
    var session: Session { fixture.session }

    /// The body's lines, built on the library's string serializer.
    struct LinesSerializer: ResponseSerializer {
        func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> [String] {
            try StringResponseSerializer().serialize(request: request, response: response, data: data, error: error)
                .split(separator: " ").map(String.init)
        }
    }

    /// Turns any response, failed or not, into its status code: shows that a
    /// serializer receives the failure and may recover from it.
    struct StatusSerializer: ResponseSerializer {
        let seen: Recorder<String>
        func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> Int {
            seen.append(error?.kind ?? "no error")
            guard let response else { throw error ?? HTTPError.abandoned }
            return response.statusCode
        }
    }

    struct NotANumber: Error, CustomStringConvertible {
        var description: String { "the body is not a number" }
    }

    /// Throws an error of its own.
    struct NumberSerializer: ResponseSerializer {
        func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> Int {
            if let error { throw error }
            guard let text = data.flatMap({ String(data: $0, encoding: .utf8) }), let number = Int(text) else { throw NotANumber() }
            return number
        }
    }

    @Test func aCustomSerializerRunsInTheChainLikeTheBuiltInOnes() async throws {
        let order = Recorder<String>()
        let done = Latch(count: 2)
        session.request(fixture.url("/text"))
            .response(queue: handlerQueue, responseSerializer: LinesSerializer()) { response in
                order.append("lines:\(response.value ?? [])")
                done.arrive()
            }
            .responseString(queue: handlerQueue) { response in
                order.append("string:\(response.value ?? "")")
                done.arrive()
            }
        #expect(await done.wait())
        #expect(order.events == [#"lines:["héllo", "wörld"]"#, "string:héllo wörld"])
    }

    @Test func aCustomSerializerReceivesTheValidationFailureAndMayRecover() async throws {
        let seen = Recorder<String>()
        let recovered = await response { handler in
            session.request(fixture.url("/status/404"))
                .response(queue: handlerQueue, responseSerializer: StatusSerializer(seen: seen)) { handler($0) }
                .validate()
                .response(queue: handlerQueue, responseSerializer: StatusSerializer(seen: seen)) { _ in }
        }
        #expect(recovered?.value == 404)
        #expect(await eventually { seen.events.count == 2 })
        #expect(seen.events == ["no error", "status(404)"], "only the handler after validate() sees its verdict")
    }

    @Test func aCustomSerializerReceivesTheTransportFailure() async throws {
        // The refusal as a transport reports it (HTTP/FailureTests checks
        // that each transport does, on a real refused connection).
        let seen = Recorder<String>()
        let failed = await response {
            session.request(fixture.url("/refused"))
                .response(queue: handlerQueue, responseSerializer: StatusSerializer(seen: seen), completionHandler: $0)
        }
        #expect(failed?.error?.urlError?.code == .cannotConnectToHost)
        #expect(seen.events == ["sessionTaskFailed(\(URLError.Code.cannotConnectToHost.rawValue))"])
    }

    @Test func aCancelledRequestSkipsTheSerializer() async throws {
        let seen = Recorder<String>()
        let cancelled = await response { handler in
            let req = session.request(fixture.url("/never")).response(queue: handlerQueue, responseSerializer: StatusSerializer(seen: seen)) { handler($0) }
            req.cancel()
        }
        #expect(cancelled?.error?.kind == "cancelled")
        #expect(seen.events.isEmpty)
    }

    @Test func anErrorOfItsOwnArrivesAsCustomSerializationFailed() async throws {
        let bad = await response {
            session.request(fixture.url("/text")).response(queue: handlerQueue, responseSerializer: NumberSerializer(), completionHandler: $0)
        }
        #expect(bad?.error?.kind == "customSerialization")
        #expect(bad?.error?.underlyingError is NotANumber)
        #expect(bad?.error?.description.contains("the body is not a number") == true)
        let good = await response {
            session.request(fixture.url("/id?id=42")).response(queue: handlerQueue, responseSerializer: NumberSerializer(), completionHandler: $0)
        }
        #expect(good?.value == 42)
    }

    @Test func aThrownHTTPErrorArrivesUnchanged() async throws {
        let validated = await response {
            session.request(fixture.url("/status/503")).validate()
                .response(queue: handlerQueue, responseSerializer: NumberSerializer(), completionHandler: $0)
        }
        #expect(validated?.error?.kind == "status(503)")
    }

    @Test func serializingResponseUsingASerializerExposesStatusHeadersAndTiming() async throws {
        let ok = try await session.request(fixture.url("/accepted"))
            .serializingResponse(using: DataResponseSerializer(emptyResponseCodes: [202])).value
        #expect(ok.response?.statusCode == 202)
        #expect(ok.response?.value(forHTTPHeaderField: "X-Queue-Position") == "7")
        #expect(ok.value == Data())
        #expect(ok.timing.end >= ok.timing.start)

        let failed = try await session.request(fixture.url("/status/404")).validate()
            .serializingResponse(using: JSONResponseSerializer()).value
        #expect(failed.response?.statusCode == 404, "a failure is inside the response, never a rejection")
        #expect(failed.error?.kind == "status(404)")
        #expect(failed.data.map { String(decoding: $0, as: UTF8.self) } == "status 404")

        let custom = try await session.request(fixture.url("/id?id=12")).serializingResponse(using: NumberSerializer()).value
        #expect(custom.value == 12 && custom.request?.url?.query == "id=12")
    }

    /// No bytes is no body: `nil`, as Alamofire's `response(queue:)` gives it.
    @Test func serializingResponseWithoutASerializerGivesTheRawBodyAndNilForNone() async throws {
        let empty = try await session.request(fixture.url("/empty")).serializingResponse().value
        #expect(empty.response?.statusCode == 200)
        #expect(empty.data == nil)
        #expect(empty.value == .some(nil))
        let some = try await session.request(fixture.url("/id?id=7")).serializingResponse().value
        #expect(some.value.flatMap { $0.map { String(decoding: $0, as: UTF8.self) } } == "7")
    }

    @Test func cancellingTheDeferredOfSerializingResponseCancelsTheRequest() async throws {
        let req = session.request(fixture.url("/never"))
        let deferred = req.serializingResponse(using: DataResponseSerializer())
        deferred.cancel()
        let other = await response { req.responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(other?.error?.kind == "cancelled", "the request itself was cancelled")
        let result = await deferred.result
        guard case .failure(let error) = result else {
            Issue.record("a cancelled deferred is rejected: \(result)")
            return
        }
        #expect((error as? DeferredError)?.isCancelled == true)
    }

    // MARK: - Alamofire's two serializer protocols

    /// A download-only serializer: the file's size, never reading it.
    struct FileSizeSerializer: DownloadResponseSerializerProtocol {
        func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: HTTPError?) throws -> Int64 {
            if let error { throw error }
            let url = try #require(fileURL)
            return try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int64 ?? -1
        }
    }

    /// A body-only serializer (Alamofire's `DataResponseSerializerProtocol`).
    struct CountSerializer: DataResponseSerializerProtocol {
        func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> Int {
            if let error { throw error }
            return data?.count ?? 0
        }
    }

    /// A response serializer that says what it was given: a body, or (its
    /// own override of the default, which reads the file) a file.
    struct SourceSerializer: ResponseSerializer {
        func serialize(request: URLRequest?, response: HTTPURLResponse?, data: Data?, error: HTTPError?) throws -> String { "body" }
        func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: HTTPError?) throws -> String {
            "file \(fileURL?.lastPathComponent.isEmpty == false)"
        }
    }

    @Test func eachSerializerProtocolServesItsKindOfRequest() async throws {
        // Downloads without a destination: their files are ours to remove.
        let sized = session.download(fixture.url("/json"))
        defer { removeDownloadedFiles(of: sized) }
        let size = try await sized.serializingDownload(using: FileSizeSerializer()).value
        #expect(size == Int64(#"{"title":"hello","count":3,"tags":["a","b"]}"#.utf8.count))
        let url = try await session.download(fixture.url("/json")).serializingDownload(using: URLResponseSerializer()).value
        #expect(FileManager.default.fileExists(atPath: url.path))
        try? FileManager.default.removeItem(at: url)
        let count = try await session.request(fixture.url("/json")).serializingResponse(using: CountSerializer()).value
        #expect(count.value == Int(size))
        let described = session.download(fixture.url("/json"))
        defer { removeDownloadedFiles(of: described) }
        #expect(try await described.serializingDownload(using: SourceSerializer()).value == "file true")
        #expect(try await session.request(fixture.url("/json")).serializingResponse(using: SourceSerializer()).value.value == "body")
        // The default for a ResponseSerializer reads the file.
        let read = session.download(fixture.url("/json"))
        defer { removeDownloadedFiles(of: read) }
        #expect(try await read.serializingDownload(using: .string).value.contains("hello"))
    }

    /// A download's `response…` handlers take Alamofire's serializer options,
    /// as a data request's do.
    @Test func aDownloadsHandlersTakeTheSerializersOptions() async throws {
        struct Entry: Decodable, Sendable { let title: String }
        let empty = session.download(fixture.url("/empty"))
        let xssi = session.download(fixture.url("/xssi"))
        defer { removeDownloadedFiles(of: empty, xssi) }
        let strict = Recorder<DownloadResponse<Data, HTTPError>>()
        let lenient = Recorder<DownloadResponse<Data, HTTPError>>()
        let decoded = Recorder<DownloadResponse<Entry, HTTPError>>()
        let text = Recorder<DownloadResponse<String, HTTPError>>()
        let json = Recorder<DownloadResponse<JSON, HTTPError>>()
        let done = Latch(count: 5)
        empty.responseData(queue: handlerQueue) { strict.append($0); done.arrive() }
            .responseData(queue: handlerQueue, emptyResponseCodes: [200]) { lenient.append($0); done.arrive() }
            .responseString(queue: handlerQueue, emptyResponseCodes: [200]) { text.append($0); done.arrive() }
        xssi.responseDecodable(of: Entry.self, queue: handlerQueue, dataPreprocessor: GoogleXSSIPreprocessor()) { decoded.append($0); done.arrive() }
            .responseJSON(queue: handlerQueue, dataPreprocessor: GoogleXSSIPreprocessor()) { json.append($0); done.arrive() }
        #expect(await done.wait())
        #expect(strict.events.first?.error?.kind == "emptyBody", "\(String(describing: strict.events.first?.error))")
        #expect(lenient.events.first?.value == Data())
        #expect(text.events.first?.value == "")
        #expect(decoded.events.first?.value?.title == "hello", "\(String(describing: decoded.events.first?.error))")
        #expect(json.events.first?.value?["title"].string == "hello")
    }
}

