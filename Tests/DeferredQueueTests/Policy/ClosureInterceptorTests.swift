import DeferredQueue
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// Alamofire's closure interceptors (`Adapter`, `Retrier`, `Interceptor`'s
/// initialisers and the static `.adapter`, `.retrier`, `.interceptor`,
/// `.retryPolicy`), in its completion-handler shape.
@Suite("Closure interceptors: Alamofire's Adapter, Retrier and Interceptor spellings")
struct ClosureInterceptorTests {
    /// Answers 503 to the first `failures` attempts, then 200.
    private static func flaky(failures: Int) -> (MockTransport, Counter) {
        let attempts = Counter()
        let transport = MockTransport { _ in
            attempts.increment() <= failures ? .text("busy", status: 503) : .json(#"{"ok":true}"#)
        }
        return (transport, attempts)
    }

    @Test func anAdapterClosureChangesEveryAttempt() async throws {
        let (transport, _) = Self.flaky(failures: 0)
        let session = Session(transport: transport)
        let signing = session.request("http://api.invalid/", interceptor: .adapter { request, _, completion in
            var request = request
            request.setValue("signed", forHTTPHeaderField: "X-Signature")
            completion(.success(request))
        })
        _ = try await signing.serializingData().value
        #expect(transport.requests.first?.value(forHTTPHeaderField: "X-Signature") == "signed")
    }

    @Test func anAdapterClosureThatFailsSendsNothing() async throws {
        let (transport, _) = Self.flaky(failures: 0)
        let session = Session(transport: transport)
        let failing = session.request("http://api.invalid/", interceptor: Adapter { _, _, completion in
            completion(.failure(TestError(4)))
        })
        do {
            _ = try await failing.serializingData().value
            Issue.record("the adapter's failure must reach the caller")
        } catch let error as HTTPError {
            if case .requestAdaptationFailed(let underlying) = error {
                #expect(underlying as? TestError == TestError(4))
            } else {
                Issue.record("got \(error)")
            }
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func aCompletionCalledTwiceCountsOnce() async throws {
        let (transport, _) = Self.flaky(failures: 0)
        let session = Session(transport: transport)
        let twice = session.request("http://api.invalid/", interceptor: Adapter { request, _, completion in
            var first = request
            first.setValue("1", forHTTPHeaderField: "X-Call")
            completion(.success(first))
            completion(.failure(TestError(2)))
        })
        _ = try await twice.serializingData().value
        #expect(transport.requests.first?.value(forHTTPHeaderField: "X-Call") == "1")
    }

    @Test func aRetrierClosureRetriesUntilItSaysNo() async throws {
        let (transport, attempts) = Self.flaky(failures: 2)
        let session = Session(transport: transport)
        let errors = Recorder<String>()
        let retried = session.request("http://api.invalid/", interceptor: .retrier { request, _, error, completion in
            errors.append("\(error)")
            completion(request.retryCount < 5 ? .retry : .doNotRetry)
        })
        let body = try await retried.serializingData().value
        #expect(body == Data(#"{"ok":true}"#.utf8))
        #expect(attempts.count == 3)
        #expect(errors.count == 2)
        #expect(retried.retryCount == 2)
    }

    @Test func anInterceptorOfListsAdaptsInOrderAndAsksItsInterceptorsLast() async throws {
        let (transport, _) = Self.flaky(failures: 1)
        let session = Session(transport: transport)
        let order = Recorder<String>()
        let tag: @Sendable (String) -> Adapter = { name in
            Adapter { request, _, completion in
                var request = request
                request.setValue((request.value(forHTTPHeaderField: "X-Order") ?? "") + name, forHTTPHeaderField: "X-Order")
                completion(.success(request))
            }
        }
        let both = Interceptor(adaptHandler: { request, session, completion in
            tag("c").adapt(request, for: session, completion: completion)
        }, retryHandler: { _, _, _, completion in
            order.append("interceptor")
            completion(.retry)
        })
        let interceptor: Interceptor = .interceptor(
            adapters: [tag("a"), tag("b")],
            retriers: [Retrier { _, _, _, completion in order.append("retrier"); completion(.doNotRetry) }],
            interceptors: [both]
        )
        _ = try await session.request("http://api.invalid/", interceptor: interceptor).serializingData().value
        #expect(transport.requests.map { $0.value(forHTTPHeaderField: "X-Order") } == ["abc", "abc"])
        #expect(order.events == ["retrier", "interceptor"])
    }

    @Test func theRetryPolicyByNameRetriesAGet() async throws {
        let (transport, attempts) = Self.flaky(failures: 1)
        let session = Session(transport: transport, interceptor: .retryPolicy)
        _ = try await session.request("http://api.invalid/").serializingData().value
        #expect(attempts.count == 2)
    }
}

private extension Adapter {
    /// Runs this adapter with a completion handler, as an Alamofire-shaped caller would.
    func adapt(_ request: URLRequest, for session: Session, completion: @escaping @Sendable (Result<URLRequest, any Error>) -> Void) {
        Task {
            do {
                completion(.success(try await self.adapt(request, for: session)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
