import AsyncHTTPClient
@testable import DeferredQueueAsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOPosix
import NIOSSL
import TestSupport
import Testing
@testable import DeferredQueue

/// The client a TLS test runs on: both transports, against the same server.
enum TLSClient: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// URLSession on Linux (libcurl): trusts only the system's store.
    case urlSession = "URLSession"
    /// AsyncHTTPClient with its default trust: the system's store.
    case asyncHTTPClient = "AsyncHTTPClient"
    /// AsyncHTTPClient whose TLS configuration also trusts the test CA.
    case asyncHTTPClientTrustingCA = "AsyncHTTPClient trusting the test CA"

    var testDescription: String { rawValue }

    /// A session on this client, and the AsyncHTTPClient to shut down after.
    func makeSession(trusting ca: NIOSSLCertificate) -> (session: Session, client: HTTPClient?) {
        switch self {
        case .urlSession:
            return (Session(configuration: .ephemeral), nil)
        case .asyncHTTPClient:
            return (Session(transport: AsyncHTTPClientTransport()), nil)
        case .asyncHTTPClientTrustingCA:
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.certificates([ca])]
            let configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            return (Session(transport: AsyncHTTPClientTransport(configuration: configuration)), nil)
        }
    }
}

/// Certificate failures on both transports, against a TLS server on
/// 127.0.0.1 presenting certificates made for the test: each fails with
/// Apple's `URLError` code, names the URL, and says it is a TLS failure.
@Suite("TLS failures say they are TLS failures, on every transport", .timeLimit(.minutes(2)))
struct TLSFailureTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates()
    }

    /// The response of one GET to a server presenting `leaf` (and `chain`).
    func response(
        on client: TLSClient, leaf: TestCertificates.Leaf, chain: [NIOSSLCertificate] = []
    ) async throws -> (response: DataResponse<Data?, HTTPError>, url: URL, requestsAnswered: Int) {
        let server = try await TLSTestServer(identity: try certificates.leaf(leaf), chain: chain)
        let (session, httpClient) = client.makeSession(trusting: certificates.ca)
        let url = server.url()
        let response = try await session.request(url).serializingResponse().value
        let answered = server.requestsAnswered
        await server.stop()
        try? await httpClient?.shutdown()
        return (response, url, answered)
    }

    /// Checks that `outcome` is a TLS failure with `code` (and `reason` in
    /// its description) that names the URL, and that no request got through.
    func expectTLSFailure(
        _ outcome: (response: DataResponse<Data?, HTTPError>, url: URL, requestsAnswered: Int),
        _ code: URLError.Code, reason: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = outcome.response.error, let urlError = error.urlError else {
            Issue.record("expected a TLS failure, got \(outcome.response.result)", sourceLocation: sourceLocation)
            return
        }
        #expect(urlError.code == code, "\(urlError.localizedDescription)", sourceLocation: sourceLocation)
        #expect(urlError.failingURL == outcome.url, sourceLocation: sourceLocation)
        #expect(
            urlError.userInfo["NSErrorFailingURLStringKey"] as? String == outcome.url.absoluteString,
            sourceLocation: sourceLocation
        )
        #expect(urlError.localizedDescription.contains("TLS failure with 127.0.0.1"), "\(urlError.localizedDescription)",
                sourceLocation: sourceLocation)
        if let reason {
            #expect(urlError.localizedDescription.contains(reason), "\(urlError.localizedDescription)", sourceLocation: sourceLocation)
        }
        #expect(error.description.contains("TLS"), "\(error.description)", sourceLocation: sourceLocation)
        #expect(outcome.requestsAnswered == 0, "the request never reaches a rejected server", sourceLocation: sourceLocation)
    }

    @Test(arguments: TLSClient.allCases)
    func aSelfSignedCertificateIsUntrusted(client: TLSClient) async throws {
        expectTLSFailure(try await response(on: client, leaf: .selfSigned), .serverCertificateUntrusted, reason: "self-signed")
    }

    @Test(arguments: [TLSClient.urlSession, .asyncHTTPClient], [false, true])
    func aCertificateFromAnUnknownCAHasAnUnknownRoot(client: TLSClient, sendsCA: Bool) async throws {
        let outcome = try await response(on: client, leaf: .good, chain: sendsCA ? [certificates.ca] : [])
        expectTLSFailure(outcome, .serverCertificateHasUnknownRoot, reason: "certificate authority")
    }

    @Test(arguments: [TLSClient.asyncHTTPClient, .asyncHTTPClientTrustingCA])
    func onAsyncHTTPClientAnExpiredCertificateHasABadDate(client: TLSClient) async throws {
        expectTLSFailure(try await response(on: client, leaf: .expired), .serverCertificateHasBadDate, reason: "expired")
    }

    @Test(arguments: [TLSClient.asyncHTTPClient, .asyncHTTPClientTrustingCA])
    func onAsyncHTTPClientANotYetValidCertificateIsNotYetValid(client: TLSClient) async throws {
        expectTLSFailure(try await response(on: client, leaf: .notYetValid), .serverCertificateNotYetValid, reason: "not yet valid")
    }

    @Test func onAsyncHTTPClientACertificateForAnotherHostUnderATrustedCAIsUntrusted() async throws {
        let outcome = try await response(on: .asyncHTTPClientTrustingCA, leaf: .wrongHost)
        expectTLSFailure(outcome, .serverCertificateUntrusted, reason: "not valid for this host name")
    }

    @Test func onAsyncHTTPClientAGoodCertificateUnderATrustedPrivateCASucceeds() async throws {
        let outcome = try await response(on: .asyncHTTPClientTrustingCA, leaf: .good)
        #expect(outcome.response.response?.statusCode == 200)
        #expect(outcome.response.data == Data("ok".utf8))
        #expect(outcome.response.error == nil)
    }

    /// libcurl checks the issuer first and trusts only the system's store:
    /// under a private CA, every other problem is hidden behind it.
    @Test(arguments: [TestCertificates.Leaf.good, .expired, .notYetValid, .wrongHost])
    func onURLSessionEveryCertificateUnderAPrivateCAHasAnUnknownRoot(leaf: TestCertificates.Leaf) async throws {
        let outcome = try await response(on: .urlSession, leaf: leaf)
        expectTLSFailure(outcome, .serverCertificateHasUnknownRoot, reason: "system's certificate store")
    }

    /// The second handshake that finds why a chain failed waits no longer
    /// than the request's own timeout when that is the shorter: here the
    /// server never answers it.
    @Test func onAsyncHTTPClientTheDiagnosisWaitsNoLongerThanTheRequestsTimeout() async throws {
        let server = try await TLSTestServer(identity: try certificates.leaf(.selfSigned), silentAfter: 1)
        // A diagnosis that would otherwise wait ten minutes.
        let session = Session(transport: AsyncHTTPClientTransport(diagnosisDeadline: .minutes(10)))
        let url = server.url()
        // Long enough for the first handshake on a loaded machine (3 s once was not, beside CI).
        let outcome = await TestSupport.response(within: 120) { session.request(url, timeout: 10).response(queue: handlerQueue, completionHandler: $0) }
        await server.stop()
        let failed = try #require(outcome, "the failure came within the request's timeout")
        #expect((failed.error?.underlyingError as? URLError)?.code == .serverCertificateUntrusted, "\(String(describing: failed.error))")
        #expect(server.connectionsAccepted == 2, "the diagnosis connected")
    }

    @Test(arguments: TLSClient.allCases)
    func aServerThatDoesNotSpeakTLSIsASecureConnectionFailure(client: TLSClient) async throws {
        let server = try await TLSTestServer(identity: nil)
        let (session, httpClient) = client.makeSession(trusting: certificates.ca)
        let url = server.url()
        let response = try await session.request(url).serializingResponse().value
        await server.stop()
        try? await httpClient?.shutdown()
        expectTLSFailure((response, url, 0), .secureConnectionFailed, reason: "TLS handshake failed")
    }
}
