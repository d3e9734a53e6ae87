import DeferredQueue
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing

/// A transport that evaluates server trust the simplest honest way: before
/// replying, it runs the attempt's evaluator on a server presenting
/// `certificates` whose chain and host checks pass (a `ScriptedValidator`).
final class EvaluatingTransport: HTTPTransport {
    let mock: MockTransport
    let certificates: [TLSCertificate]
    var callbackQueue: DispatchQueue { mock.callbackQueue }
    let acceptEncoding: String? = nil
    let supportsServerTrustEvaluation = true

    init(presenting certificates: [TLSCertificate], reply: @escaping @Sendable (URLRequest) -> MockReply = { _ in .text("ok") }) {
        self.certificates = certificates
        mock = MockTransport(reply)
    }

    func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask {
        if let evaluator = attempt.serverTrustEvaluator, let host = attempt.request.url?.host {
            do {
                try evaluator.evaluate(ScriptedValidator().trust(host: host, certificates: certificates), forHost: host)
            } catch {
                mock.callbackQueue.async { events.didComplete(body: nil, error: error) }
                return NothingToCancel()
            }
        }
        return mock.startAttempt(attempt, events: events)
    }

    func shutdown() { mock.shutdown() }

    struct NothingToCancel: HTTPTransportTask {
        func cancel() {}
    }
}

/// How a session applies its ServerTrustManager: per attempt (redirect hops
/// included), only for `https`, and never by sending a request a transport
/// cannot evaluate.
@Suite("Session with a ServerTrustManager")
struct SessionServerTrustTests {
    let certificate: TLSCertificate

    init() throws {
        certificate = try TLSCertificateTests.certificate
    }

    @Test func urlSessionOnLinuxRefusesAnEvaluatedHostAndNamesTheTransportThatCan() async throws {
        let session = Session(serverTrustManager: ServerTrustManager(evaluators: ["pinned.invalid": DefaultTrustEvaluator()]))
        let response = try await session.request("https://pinned.invalid/").serializingResponse().value
        #if canImport(FoundationNetworking)
        #expect(response.error?.kind == "serverTrust(transportCannotEvaluate)", "\(String(describing: response.error))")
        #expect(response.error?.description.contains("AsyncHTTPClientTransport") == true)
        #expect(response.error?.description.contains("URLSessionTransport") == true)
        #else
        // Apple platforms evaluate; the host does not exist.
        #expect(response.error?.urlError != nil)
        #endif
    }

    @Test func aTransportThatCannotEvaluateIsNeverAskedToSend() async throws {
        let transport = MockTransport(replying: .text("ok"))
        let session = Session(transport: transport, serverTrustManager: ServerTrustManager(evaluators: ["pinned.invalid": DisabledTrustEvaluator()]))
        let response = try await session.request("https://PINNED.invalid./").serializingResponse().value
        #expect(response.error?.kind == "serverTrust(transportCannotEvaluate)")
        #expect(response.error?.description.contains("MockTransport") == true)
        #expect(transport.attempts.isEmpty)
    }

    @Test func plainHTTPIsNotEvaluatedAsAlamofireDoes() async throws {
        let transport = MockTransport(replying: .text("ok"))
        let session = Session(transport: transport, serverTrustManager: ServerTrustManager(evaluators: [:]))
        let response = try await session.request("http://unlisted.invalid/").serializingResponse().value
        #expect(response.data == Data("ok".utf8))
        #expect(transport.attempts.first?.serverTrustEvaluator == nil)
    }

    @Test func theEvaluatorOfTheAttemptsHostTravelsWithTheAttempt() async throws {
        let transport = EvaluatingTransport(presenting: [certificate])
        let manager = ServerTrustManager(evaluators: ["pinned.invalid": PinnedCertificatesTrustEvaluator(certificates: [certificate])])
        let session = Session(transport: transport, serverTrustManager: manager)
        let response = try await session.request("https://pinned.invalid/").serializingResponse().value
        #expect(response.data == Data("ok".utf8))
        #expect(transport.mock.attempts.first?.serverTrustEvaluator is PinnedCertificatesTrustEvaluator)
    }

    @Test func aRefusalFailsTheRequestWithTheEvaluatorsReasonAndNothingIsSent() async throws {
        let other = try TLSCertificate(derEncoded: certificate.derBytes.enumerated().map { $0.offset == 15 ? $0.element ^ 1 : $0.element })
        let transport = EvaluatingTransport(presenting: [other])
        let manager = ServerTrustManager(evaluators: ["pinned.invalid": PinnedCertificatesTrustEvaluator(certificates: [certificate])])
        let session = Session(transport: transport, serverTrustManager: manager)
        let response = try await session.request("https://pinned.invalid/").serializingResponse().value
        #expect(response.error?.kind == "serverTrust(certificatePinningFailed)")
        guard case .serverTrustEvaluationFailed(.certificatePinningFailed(let host, _, let pinned, let server)) = response.error else {
            Issue.record("\(String(describing: response.error))")
            return
        }
        #expect(host == "pinned.invalid")
        #expect(pinned == [certificate])
        #expect(server == [other])
        #expect(transport.mock.attempts.isEmpty)
    }

    /// Alamofire's `didFailTask(_:earlyWithError:)`: a refused certificate,
    /// told before the attempt's completion; an accepted one is not.
    @Test func aRefusedCertificateIsToldAsAnEarlyFailureOfTheTask() async throws {
        let heard = Recorder<String>()
        let monitor = ClosureEventMonitor()
        monitor.requestDidFailTaskEarlyWithError = { _, task, error in heard.append("early:\(task.attempt):\(error.kind)") }
        monitor.requestDidCompleteTaskWithError = { _, task, error in heard.append("complete:\(task.attempt):\(error?.kind ?? "nil")") }
        let other = try TLSCertificate(derEncoded: certificate.derBytes.enumerated().map { $0.offset == 15 ? $0.element ^ 1 : $0.element })
        let manager = ServerTrustManager(evaluators: ["pinned.invalid": PinnedCertificatesTrustEvaluator(certificates: [certificate])])
        let refusing = Session(transport: EvaluatingTransport(presenting: [other]), serverTrustManager: manager, eventMonitors: [monitor])
        _ = try await refusing.request("https://pinned.invalid/").serializingResponse().value
        await drained(monitor.queue)
        #expect(heard.events == ["early:1:serverTrust(certificatePinningFailed)", "complete:1:serverTrust(certificatePinningFailed)"])

        let accepted = Recorder<String>()
        let quiet = ClosureEventMonitor()
        quiet.requestDidFailTaskEarlyWithError = { _, _, _ in accepted.append("early") }
        quiet.requestDidCompleteTaskWithError = { _, _, _ in accepted.append("complete") }
        let trusting = Session(transport: EvaluatingTransport(presenting: [certificate]), serverTrustManager: manager, eventMonitors: [quiet])
        _ = try await trusting.request("https://pinned.invalid/").serializingResponse().value
        await drained(quiet.queue)
        #expect(accepted.events == ["complete"])
    }

    @Test func aRedirectToAnEvaluatedHostIsEvaluatedAndOneToAnUnlistedHostIsRefused() async throws {
        let transport = EvaluatingTransport(presenting: [certificate]) { request in
            switch request.url?.host {
            case "start.invalid": .redirect(to: "https://pinned.invalid/next")
            case "pinned.invalid": .redirect(to: "https://unlisted.invalid/last")
            default: .text("reached")
            }
        }
        let manager = ServerTrustManager(evaluators: [
            "start.invalid": DisabledTrustEvaluator(),
            "pinned.invalid": PinnedCertificatesTrustEvaluator(certificates: [certificate]),
        ])
        let session = Session(transport: transport, serverTrustManager: manager)
        let response = try await session.request("https://start.invalid/").serializingResponse().value
        #expect(response.error?.kind == "serverTrust(noRequiredEvaluator)", "\(String(describing: response.error))")
        let attempts = transport.mock.attempts
        #expect(attempts.map { $0.request.url?.host } == ["start.invalid", "pinned.invalid"])
        #expect(attempts.last?.serverTrustEvaluator is PinnedCertificatesTrustEvaluator)
    }

    @Test func aManagerThatThrowsItsOwnErrorIsACustomEvaluationFailure() async throws {
        // @unchecked Sendable, as every ServerTrustManager: it adds no state.
        final class Throwing: ServerTrustManager, @unchecked Sendable {
            override func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? { throw TestError(3) }
        }
        let transport = EvaluatingTransport(presenting: [certificate])
        let session = Session(transport: transport, serverTrustManager: Throwing(evaluators: [:]))
        let response = try await session.request("https://any.invalid/").serializingResponse().value
        #expect(response.error?.kind == "serverTrust(customEvaluationFailed)")
        #expect(response.error?.underlyingError as? TestError == TestError(3))
        #expect(transport.mock.attempts.isEmpty)
    }
}
