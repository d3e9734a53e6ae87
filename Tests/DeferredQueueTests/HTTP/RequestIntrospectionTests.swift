import DeferredQueue
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Synchronization
import Testing

/// Alamofire's request introspection and response transforms, under its names.
@Suite("Introspection: isInitialized…isFinished, cURLDescription(calling:), tryMap")
struct RequestIntrospectionTests {
    private let transport = MockTransport { request in
        request.url?.path == "/never" ? .silence : .json(#"{"count":3}"#)
    }

    /// A request to the silent path that outlives any test: a silent server
    /// times the request out after its idle timeout (60 s by default), which a
    /// loaded CI machine can pass before the test looks at it.
    private func silentRequest(_ session: Session) -> DataRequest {
        session.request("http://api.invalid/never", requestModifier: { $0.timeoutInterval = .infinity })
    }

    @Test func stateFlagsFollowTheLifecycle() async throws {
        let session = Session(transport: transport)
        let request = session.request("http://api.invalid/")
        #expect(request.isInitialized && !request.isResumed && !request.isFinished && !request.isCancelled)
        _ = try await request.serializingData().value
        #expect(request.isFinished && !request.isInitialized && !request.isResumed && !request.isCancelled)

        let hanging = silentRequest(session)
        hanging.resume()
        #expect(await eventually { hanging.isResumed })
        hanging.cancel()
        #expect(hanging.isCancelled && !hanging.isFinished && !hanging.isResumed)
    }

    @Test func cancelAllRequestsCompletesOnTheQueueOnceEveryRequestIsCancelled() async throws {
        let session = Session(transport: transport)
        let requests = (0..<3).map { _ in silentRequest(session) }
        for request in requests { request.resume() }
        #expect(await eventually { requests.allSatisfy(\.isResumed) })
        let states = Recorder<[RequestState]>()
        let done = Latch()
        session.cancelAllRequests(completingOnQueue: DispatchQueue(label: "cancel-all")) {
            states.append(requests.map(\.state))
            done.arrive()
        }
        #expect(await done.wait())
        #expect(states.events == [[.cancelled, .cancelled, .cancelled]])
    }

    @Test func withAllRequestsSeesTheRunningRequestsAndOnlyThem() async throws {
        let session = Session(transport: transport)
        let running = (0..<2).map { _ in silentRequest(session) }
        for request in running { request.resume() }
        _ = try await session.request("http://api.invalid/").serializingData().value
        #expect(await eventually { running.allSatisfy(\.isResumed) })
        let seen = Recorder<Set<Request>>()
        let done = Latch()
        session.withAllRequests { requests in
            seen.append(requests)
            done.arrive()
        }
        #expect(await done.wait())
        #expect(seen.events.first == Set(running))
        session.cancelAllRequests()
    }

    @Test func onURLRequestCreationHandsOverTheBuiltRequest() async throws {
        let session = Session(transport: transport)
        let built = Recorder<URLRequest>()
        let done = Latch()
        session.request("http://api.invalid/items", method: .put, headers: ["X-Trace": "1"])
            .onURLRequestCreation(on: DispatchQueue(label: "created")) { request in
                built.append(request)
                done.arrive()
            }
        #expect(await done.wait())
        #expect(built.events.first?.httpMethod == "PUT")
        #expect(built.events.first?.value(forHTTPHeaderField: "X-Trace") == "1")
        let invalid = Counter()
        let queue = DispatchQueue(label: "never")
        session.request("not a url").onURLRequestCreation(on: queue) { _ in invalid.increment() }
        let barrier = Latch()
        queue.async { barrier.arrive() }
        #expect(await barrier.wait())
        #expect(invalid.count == 0, "a request that could not be built has no URLRequest to hand over")
    }

    @Test func aRequestEqualsOnlyItself() {
        let session = Session(transport: transport)
        let first = session.request("http://api.invalid/")
        let second = session.request("http://api.invalid/")
        #expect(first == first && first != second)
        #expect(Set<Request>([first, first, second]).count == 2)
    }

    /// Alamofire's shape: `-X` always, `-u` for the credential, `-b` for the
    /// cookies (never a `Cookie` -H), then the latest attempt as sent.
    @Test func cURLDescriptionHasAlamofiresShape() async throws {
        let transport = MockTransport { request in
            request.url?.path == "/login" ? .status(200, headers: ["Set-Cookie": "session=abc; Path=/"], body: Data("ok".utf8)) : .json("{}")
        }
        let session = Session(transport: transport)
        let get = session.request("http://api.invalid/items").authenticate(username: "ann", password: "pa$$")
        var lines = get.cURLDescription().components(separatedBy: " \\\n\t")
        #expect(lines.first == "$ curl -v")
        #expect(lines.dropFirst().first == "-X GET")
        #expect(lines.contains("-u 'ann:pa$$'"))
        #expect(lines.last == "'http://api.invalid/items'")
        #expect(!lines.contains { $0.hasPrefix("-b") }, "no cookie stored yet")

        _ = try await session.request("http://api.invalid/login").serializingData().value
        let next = session.request("http://api.invalid/items")
        lines = next.cURLDescription().components(separatedBy: " \\\n\t")
        #expect(lines.contains("-b 'session=abc'"), "the cookies the first attempt will send")
        _ = try await next.serializingData().value
        lines = next.cURLDescription().components(separatedBy: " \\\n\t")
        #expect(lines.contains("-b 'session=abc'"), "the cookies the attempt sent")
        #expect(!lines.contains { $0.lowercased().hasPrefix("-h 'cookie") })
        #expect(lines.contains { $0.hasPrefix("-H 'User-Agent: ") }, "the session's default fields")

        // A method is a token, and `` ` `` and `$` are token characters: pasted, it must not run `id`.
        let odd = session.request("http://api.invalid/items", method: HTTPMethod(rawValue: "GET`id`$(id)"))
        #expect(odd.cURLDescription().components(separatedBy: " \\\n\t").dropFirst().first == "-X 'GET`id`$(id)'")
        let purge = session.request("http://api.invalid/items", method: HTTPMethod(rawValue: "PURGE-ALL"))
        #expect(purge.cURLDescription().components(separatedBy: " \\\n\t").dropFirst().first == "-X PURGE-ALL")
    }

    /// Alamofire's `Request.error`: the failure it finished with, or the
    /// first a validator returned; a success leaves it `nil`.
    @Test func errorIsTheFailureTheRequestFinishedWithOrAValidatorsFirst() async throws {
        let transport = MockTransport { request in
            switch request.url?.path {
            case "/missing": .status(404, body: Data("no".utf8))
            case "/offline": .failure(.notConnectedToInternet)
            case "/never": .silence
            default: .json(#"{"count":3}"#)
            }
        }
        let session = Session(transport: transport)

        let ok = session.request("http://api.invalid/").validate()
        _ = await ok.serializingData().result
        #expect(ok.error == nil)

        let missing = session.request("http://api.invalid/missing").validate().validate(statusCode: [200])
        _ = await missing.serializingData().result
        #expect(missing.error?.responseCode == 404, "the first validator's failure, not the second's")

        let offline = session.request("http://api.invalid/offline")
        _ = await offline.serializingData().result
        #expect((offline.error?.underlyingError as? URLError)?.code == .notConnectedToInternet)

        let adapter = Adapter { _, _, completion in completion(.failure(URLError(.userAuthenticationRequired))) }
        let unadapted = session.request("http://api.invalid/", interceptor: adapter)
        _ = await unadapted.serializingData().result
        guard case .requestAdaptationFailed? = unadapted.error else {
            Issue.record("expected requestAdaptationFailed, got \(String(describing: unadapted.error))")
            return
        }

        let cancelled = silentRequest(session)
        cancelled.resume()
        cancelled.cancel()
        #expect(cancelled.error?.isCancelled == true)
        #expect(session.request("http://api.invalid/").error == nil, "not started, not failed")
    }

    /// Alamofire's `requests`: per attempt, the request before the adapters
    /// and the adapted one when adapters ran; `firstRequest`, `lastRequest`.
    @Test func requestsListEveryURLRequestMadeForTheRequest() async throws {
        let attempts = Atomic<Int>(0)
        let transport = MockTransport { _ in
            attempts.add(1, ordering: .sequentiallyConsistent).newValue == 1 ? .status(503) : .json("{}")
        }
        let session = Session(transport: transport)
        let plain = session.request("http://api.invalid/plain")
        #expect(plain.requests.isEmpty && plain.firstRequest == nil, "nothing made before the first attempt")
        _ = await plain.serializingData().result
        #expect(plain.requests.map { $0.url?.path } == ["/plain"])
        #expect(plain.firstRequest?.value(forHTTPHeaderField: "User-Agent") == nil, "before the session's default fields")
        #expect(plain.request?.value(forHTTPHeaderField: "User-Agent") != nil, "`request` is as sent")

        attempts.store(0, ordering: .sequentiallyConsistent)
        let adapter = Adapter { request, _, completion in
            var adapted = request
            adapted.setValue("yes", forHTTPHeaderField: "X-Adapted")
            completion(.success(adapted))
        }
        let retried = session.request("http://api.invalid/retried", interceptor: Interceptor(adapter: adapter, retrier: RetryPolicy(retryLimit: 1, exponentialBackoffScale: 0.001)))
        _ = await retried.serializingData().result
        #expect(retried.retryCount == 1)
        #expect(retried.requests.map { $0.value(forHTTPHeaderField: "X-Adapted") ?? "-" } == ["-", "yes", "-", "yes"])
        #expect(retried.firstRequest?.value(forHTTPHeaderField: "X-Adapted") == nil)
        #expect(retried.lastRequest?.value(forHTTPHeaderField: "X-Adapted") == "yes")
    }

    @Test func cURLDescriptionCallsItsHandlerOnTheQueue() async throws {
        let session = Session(transport: transport)
        let queue = DispatchQueue(label: "curl")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let seen = Recorder<(String, Bool)>()
        let done = Latch()
        let request = session.request("http://api.invalid/items", method: .post)
        request.cURLDescription(on: queue) { command in
            seen.append((command, DispatchQueue.getSpecific(key: key) == true))
            done.arrive()
        }
        #expect(await done.wait())
        let (command, onQueue) = try #require(seen.events.first)
        #expect(command == request.cURLDescription())
        #expect(command.contains("-X POST") && command.contains("http://api.invalid/items"))
        #expect(onQueue)
    }

    /// Without a queue, as in Alamofire: off the main queue (which a Linux
    /// program may never run), on the request's serialization queue.
    @Test func cURLDescriptionWithoutAQueueCallsItsHandlerOnTheSerializationQueue() async throws {
        let serialization = DispatchQueue(label: "serialization")
        let key = DispatchSpecificKey<Bool>()
        serialization.setSpecific(key: key, value: true)
        let session = Session(transport: transport, serializationQueue: serialization)
        let seen = Recorder<Bool>()
        let done = Latch()
        let request = session.request("http://api.invalid/items")
        #expect(request.serializationQueue === serialization)
        request.cURLDescription { _ in
            seen.append(DispatchQueue.getSpecific(key: key) == true)
            done.arrive()
        }
        #expect(await done.wait())
        #expect(seen.events == [true])
    }

    @Test func aRequestShowsItsCredentialInterceptorAndQueues() {
        final class Marker: RequestInterceptor {}
        let interceptor = Marker()
        let session = Session(transport: transport)
        let request = session.request("http://api.invalid/items", interceptor: interceptor)
        #expect(request.credential == nil)
        request.authenticate(username: "user", password: "secret")
        #expect(request.credential?.user == "user" && request.credential?.password == "secret")
        #expect(request.interceptor as? Marker === interceptor)
        #expect(session.request("http://api.invalid/items").interceptor == nil)
        #expect(request.underlyingQueue === session.rootQueue)
    }

    /// Alamofire's `tryMap`: the failure becomes `any Error`, the thrown one as it is.
    @Test func tryMapWidensTheFailureToAnyError() async throws {
        let session = Session(transport: transport)
        let response = try await session.request("http://api.invalid/").serializingResponse(using: .json).value
        let count = response.tryMap { json -> Int in
            guard let count = json["count"].int else { throw TestError(1) }
            return count
        }
        #expect(count.value == 3)
        #expect(count.response?.statusCode == 200)
        let thrown: DataResponse<Int, any Error> = response.tryMap { _ -> Int in throw TestError(2) }
        #expect(thrown.error as? TestError == TestError(2))
        let kept = response.tryMap { _ -> Int in throw HTTPError.cancelled }
        #expect((kept.error as? HTTPError)?.isCancelled == true)
    }

    @Test func downloadResponsesMapAsDataResponsesDo() {
        let file = URL(fileURLWithPath: "/tmp/x")
        let response = DownloadResponse<Int, HTTPError>(
            request: nil, response: nil, fileURL: file, resumeData: nil, result: .success(2),
            timing: ResponseTiming(start: Date(), end: Date())
        )
        #expect(response.map { $0 * 2 }.value == 4)
        #expect(response.map { $0 * 2 }.fileURL == file)
        #expect(response.tryMap { _ -> Int in throw TestError(3) }.error != nil)
        let failed = DownloadResponse<Int, HTTPError>(
            request: nil, response: nil, fileURL: nil, resumeData: nil, result: .failure(.cancelled),
            timing: ResponseTiming(start: Date(), end: Date())
        )
        #expect(failed.mapError { _ in HTTPError.abandoned }.error?.isCancelled == false)
        #expect(failed.map { $0 + 1 }.error?.isCancelled == true)
        // tryMapError: the failure becomes `any Error`: the returned one, or the thrown one.
        #expect(failed.tryMapError { _ in HTTPError.abandoned }.error.map { "\($0)" } == "\(HTTPError.abandoned)")
        #expect((failed.tryMapError { _ -> HTTPError in throw HTTPError.invalidURL("x") }.error as? HTTPError)?.kind == "invalidURL")
        #expect(failed.tryMapError { _ -> HTTPError in throw TestError(4) }.error as? TestError == TestError(4))
        #expect(response.tryMapError { _ -> HTTPError in throw TestError(5) }.value == 2, "a success passes through")
        let data = DataResponse<Int, HTTPError>(request: nil, response: nil, data: nil, result: .failure(.cancelled),
                                     timing: ResponseTiming(start: Date(), end: Date()))
        #expect(data.tryMapError { _ -> HTTPError in throw TestError(6) }.error as? TestError == TestError(6))
    }
}
