import AsyncHTTPClient
import Crypto
import DeferredQueue
import DeferredQueueAsyncHTTPClient
import DeferredQueueTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOSSL
import TestSupport
import Synchronization
import Testing

/// Alamofire's server-trust evaluators on AsyncHTTPClient, against a TLS
/// server on 127.0.0.1 presenting certificates made for each test: every
/// refusal is ``HTTPError/serverTrustEvaluationFailed(reason:)`` with
/// Alamofire's reason, and no request reaches a refused server.
@Suite("Server trust on AsyncHTTPClient: pinning, private CAs, mutual TLS", .timeLimit(.minutes(2)))
struct ServerTrustTests {
    let root: TestCertificates

    init() throws {
        root = try TestCertificates()
    }

    /// A transport whose client also trusts `ca` (a private CA), or only the system's roots.
    static func transport(trusting ca: NIOSSLCertificate? = nil) -> AsyncHTTPClientTransport {
        guard let ca else { return AsyncHTTPClientTransport() }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.certificates([ca])]
        return AsyncHTTPClientTransport(configuration: HTTPClient.Configuration(tlsConfiguration: tls))
    }

    /// One GET of `path` on `server` through a session with `evaluators`.
    static func get(
        _ server: TLSTestServer, host: String = "127.0.0.1", evaluators: [String: any ServerTrustEvaluating],
        allHostsMustBeEvaluated: Bool = true, transport: @autoclosure () -> AsyncHTTPClientTransport = transport()
    ) async throws -> DataResponse<Data?, HTTPError> {
        let manager = ServerTrustManager(allHostsMustBeEvaluated: allHostsMustBeEvaluated, evaluators: evaluators)
        // A transport serves one session: it shuts down with it.
        let session = Session(transport: transport(), serverTrustManager: manager)
        let url = URL(string: "https://\(host):\(server.port)/tls")!
        return try await session.request(url).serializingResponse().value
    }

    /// Checks that `response` was refused with `reason` before the server saw
    /// it (the server answered `answered` earlier requests).
    static func expectRefused(
        _ response: DataResponse<Data?, HTTPError>, _ reason: String, by server: TLSTestServer, answered: Int = 0, detail: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.error?.kind == "serverTrust(\(reason))", "\(String(describing: response.error))",
                sourceLocation: sourceLocation)
        #expect(response.error?.isServerTrustEvaluationError == true, sourceLocation: sourceLocation)
        if let detail {
            #expect(response.error?.description.contains(detail) == true, "\(String(describing: response.error))",
                    sourceLocation: sourceLocation)
        }
        #expect(response.response == nil, sourceLocation: sourceLocation)
        #expect(server.requestsAnswered == answered, "nothing reaches a refused server", sourceLocation: sourceLocation)
    }

    static func expectOK(_ response: DataResponse<Data?, HTTPError>, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(response.error == nil, "\(String(describing: response.error))", sourceLocation: sourceLocation)
        #expect(response.response?.statusCode == 200, sourceLocation: sourceLocation)
        #expect(response.data == Data("ok".utf8), sourceLocation: sourceLocation)
    }

    // MARK: - Self-signed certificates

    @Test func aSelfSignedCertificateFailsTheDefaultEvaluation() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.selfSigned))
        let response = try await Self.get(server, evaluators: ["127.0.0.1": DefaultTrustEvaluator()])
        await server.stop()
        Self.expectRefused(response, "defaultEvaluationFailed", by: server, detail: "self-signed")
    }

    @Test func aPinnedSelfSignedCertificateIsTrustedWhenSelfSignedIsAccepted() async throws {
        let leaf = try root.leaf(.selfSigned)
        let server = try await TLSTestServer(identity: leaf)
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try leaf.tlsCertificate], acceptSelfSignedCertificates: true)
        let response = try await Self.get(server, evaluators: ["127.0.0.1": pinned])
        await server.stop()
        Self.expectOK(response)
    }

    @Test func aPinnedSelfSignedCertificateStillFailsTheDefaultValidationWithoutAcceptingSelfSigned() async throws {
        let leaf = try root.leaf(.selfSigned)
        let server = try await TLSTestServer(identity: leaf)
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try leaf.tlsCertificate])
        let response = try await Self.get(server, evaluators: ["127.0.0.1": pinned])
        await server.stop()
        Self.expectRefused(response, "defaultEvaluationFailed", by: server)
    }

    @Test func anotherSelfSignedCertificateFailsPinning() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.selfSigned))
        let pinned = PinnedCertificatesTrustEvaluator(
            certificates: [try root.leaf(.selfSigned).tlsCertificate], acceptSelfSignedCertificates: true
        )
        let response = try await Self.get(server, evaluators: ["127.0.0.1": pinned])
        await server.stop()
        // The handshake trusts only the pinned certificate: the chain fails there.
        Self.expectRefused(response, "defaultEvaluationFailed", by: server)
    }

    @Test func withoutDefaultValidationOnlyThePinDecides() async throws {
        let leaf = try root.leaf(.selfSigned)
        let server = try await TLSTestServer(identity: leaf)
        let other = PinnedCertificatesTrustEvaluator(
            certificates: [try root.leaf(.selfSigned).tlsCertificate], performDefaultValidation: false
        )
        Self.expectRefused(try await Self.get(server, evaluators: ["127.0.0.1": other]), "certificatePinningFailed", by: server)
        let same = PinnedCertificatesTrustEvaluator(certificates: [try leaf.tlsCertificate], performDefaultValidation: false)
        Self.expectOK(try await Self.get(server, evaluators: ["127.0.0.1": same]))
        await server.stop()
    }

    @Test func theDisabledEvaluatorAcceptsAnyServer() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.selfSigned))
        let response = try await Self.get(server, evaluators: ["127.0.0.1": DisabledTrustEvaluator()])
        await server.stop()
        Self.expectOK(response)
    }

    // MARK: - A private CA

    @Test func pinningAPrivateRootAsTheOnlyAnchorKeepsEveryOtherCheck() async throws {
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try root.tlsCertificate], acceptSelfSignedCertificates: true)
        let good = try await TLSTestServer(identity: try root.leaf(.good))
        Self.expectOK(try await Self.get(good, evaluators: ["127.0.0.1": pinned]))
        await good.stop()

        let expired = try await TLSTestServer(identity: try root.leaf(.expired))
        Self.expectRefused(try await Self.get(expired, evaluators: ["127.0.0.1": pinned]), "defaultEvaluationFailed", by: expired,
                           detail: "expired")
        await expired.stop()

        let wrongHost = try await TLSTestServer(identity: try root.leaf(.wrongHost))
        Self.expectRefused(try await Self.get(wrongHost, evaluators: ["127.0.0.1": pinned]), "hostValidationFailed", by: wrongHost,
                           detail: "not valid for the IP address 127.0.0.1")
        await wrongHost.stop()
    }

    @Test func aPrivateCAThatTheTransportTrustsPassesTheDefaultEvaluationByName() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.good))
        func transport() -> AsyncHTTPClientTransport { Self.transport(trusting: root.ca) }
        Self.expectOK(try await Self.get(server, host: "localhost", evaluators: ["localhost": DefaultTrustEvaluator()], transport: transport()))
        await server.stop()
    }

    @Test func withoutHostValidationAWrongHostIsAccepted() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.wrongHost))
        func transport() -> AsyncHTTPClientTransport { Self.transport(trusting: root.ca) }
        Self.expectOK(try await Self.get(server, evaluators: ["127.0.0.1": DefaultTrustEvaluator(validateHost: false)], transport: transport()))
        await server.stop()
    }

    // MARK: - Pinned leaves, intermediates and keys

    @Test func aPinnedLeafIssuedByATrustedCAIsFoundAndAnotherIsNot() async throws {
        let leaf = try root.leaf(.good)
        let server = try await TLSTestServer(identity: leaf)
        func transport() -> AsyncHTTPClientTransport { Self.transport(trusting: root.ca) }
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try leaf.tlsCertificate])
        Self.expectOK(try await Self.get(server, evaluators: ["127.0.0.1": pinned], transport: transport()))
        let other = PinnedCertificatesTrustEvaluator(certificates: [try root.leaf(.good).tlsCertificate])
        Self.expectRefused(try await Self.get(server, evaluators: ["127.0.0.1": other], transport: transport()),
                           "certificatePinningFailed", by: server, answered: 1)
        await server.stop()
    }

    @Test func aPinnedIntermediateAcceptsItsLeavesAndRefusesASiblingIntermediatesLeaves() async throws {
        let pinnedCA = try root.intermediate(name: "Pinned Intermediate")
        let siblingCA = try root.intermediate(name: "Sibling Intermediate")
        func transport() -> AsyncHTTPClientTransport { Self.transport(trusting: root.ca) }
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try pinnedCA.tlsCertificate])

        let server = try await TLSTestServer(identity: try pinnedCA.leaf(.good), chain: [pinnedCA.ca])
        Self.expectOK(try await Self.get(server, evaluators: ["127.0.0.1": pinned], transport: transport()))
        await server.stop()

        let sibling = try await TLSTestServer(identity: try siblingCA.leaf(.good), chain: [siblingCA.ca])
        Self.expectRefused(try await Self.get(sibling, evaluators: ["127.0.0.1": pinned], transport: transport()),
                           "certificatePinningFailed", by: sibling)
        await sibling.stop()
    }

    @Test func aPinnedKeyOfTheLeafOrOfItsIssuerIsFound() async throws {
        let intermediate = try root.intermediate(name: "Keyed Intermediate")
        let leaf = try intermediate.leaf(.good)
        let server = try await TLSTestServer(identity: leaf, chain: [intermediate.ca])
        func transport() -> AsyncHTTPClientTransport { Self.transport(trusting: root.ca) }
        for key in [try leaf.tlsCertificate.publicKey, try intermediate.tlsCertificate.publicKey] {
            Self.expectOK(try await Self.get(server, evaluators: ["127.0.0.1": PublicKeysTrustEvaluator(keys: [key])], transport: transport()))
        }
        let stranger = PublicKeysTrustEvaluator(keys: [try root.leaf(.good).tlsCertificate.publicKey])
        Self.expectRefused(try await Self.get(server, evaluators: ["127.0.0.1": stranger], transport: transport()),
                           "publicKeyPinningFailed", by: server, answered: 2)
        await server.stop()
    }

    /// The leaf alone does not match: the rest of the chain is read in a
    /// second handshake, and believed only where signatures chain up.
    @Test func aPinnedRootOrRootKeyAboveAnIntermediateIsFound() async throws {
        let intermediate = try root.intermediate(name: "Unpinned Intermediate")
        let server = try await TLSTestServer(identity: try intermediate.leaf(.good), chain: [intermediate.ca])
        func transport() -> AsyncHTTPClientTransport { Self.transport(trusting: root.ca) }
        let byCertificate = PinnedCertificatesTrustEvaluator(certificates: [try root.tlsCertificate])
        Self.expectOK(try await Self.get(server, evaluators: ["127.0.0.1": byCertificate], transport: transport()))
        let byKey = PublicKeysTrustEvaluator(keys: [try root.tlsCertificate.publicKey])
        Self.expectOK(try await Self.get(server, evaluators: ["127.0.0.1": byKey], transport: transport()))
        await server.stop()
    }

    /// The chain read for a leaf is kept: one extra handshake per
    /// certificate, not per connection (the server closes each one).
    @Test func theChainAboveALeafIsReadOncePerCertificate() async throws {
        let intermediate = try root.intermediate(name: "Unpinned Intermediate")
        let server = try await TLSTestServer(identity: try intermediate.leaf(.good), chain: [intermediate.ca])
        let manager = ServerTrustManager(evaluators: ["127.0.0.1": PinnedCertificatesTrustEvaluator(certificates: [try root.tlsCertificate])])
        let session = Session(transport: Self.transport(trusting: root.ca), serverTrustManager: manager)
        for _ in 0..<3 {
            Self.expectOK(try await session.request("https://127.0.0.1:\(server.port)/").serializingResponse().value)
        }
        #expect(server.requestsAnswered == 3)
        #expect(server.connectionsAccepted == 4)
        await server.stop()
    }

    /// A server that appends a pinned certificate it was not issued under
    /// gains nothing: the pin is not on the path its leaf's signatures make.
    @Test func aPinnedCertificateAppendedToAnotherChainIsNotBelieved() async throws {
        let pinnedCA = try root.intermediate(name: "Pinned Intermediate")
        let otherCA = try root.intermediate(name: "Other Intermediate")
        let server = try await TLSTestServer(identity: try otherCA.leaf(.good), chain: [otherCA.ca, pinnedCA.ca])
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try pinnedCA.tlsCertificate])
        let response = try await Self.get(server, evaluators: ["127.0.0.1": pinned], transport: Self.transport(trusting: root.ca))
        Self.expectRefused(response, "certificatePinningFailed", by: server)
        guard case .serverTrustEvaluationFailed(.certificatePinningFailed(_, _, _, let seen)) = response.error else { return }
        // The leaf and the CA that issued it: not the appended pin.
        #expect(seen.count == 2)
        #expect(seen.last == (try otherCA.tlsCertificate))
        #expect(!seen.contains(try pinnedCA.tlsCertificate))
        await server.stop()
    }

    /// AsyncHTTPClient drops a refused connection without closing it: the
    /// transport closes it, or a silent server would keep every one open.
    @Test func aRefusedConnectionIsClosed() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.selfSigned))
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try root.leaf(.selfSigned).tlsCertificate], performDefaultValidation: false)
        Self.expectRefused(try await Self.get(server, evaluators: ["127.0.0.1": pinned]), "certificatePinningFailed", by: server)
        #expect(await eventually(within: 30) { server.connectionsOpen == 0 }, "\(server.connectionsOpen) connections left open")
        await server.stop()
    }

    /// A manager may hand out another evaluator for the same host (new
    /// pins): the transport never judges by the old one.
    @Test func aNewEvaluatorForAHostIsUsedAtOnce() async throws {
        let leaf = try root.leaf(.selfSigned)
        let server = try await TLSTestServer(identity: leaf)
        let manager = RotatingManager(PublicKeysTrustEvaluator(keys: [try leaf.tlsCertificate.publicKey], performDefaultValidation: false))
        let session = Session(transport: AsyncHTTPClientTransport(), serverTrustManager: manager)
        Self.expectOK(try await session.request("https://127.0.0.1:\(server.port)/").serializingResponse().value)
        manager.current.withLock {
            $0 = PublicKeysTrustEvaluator(keys: [try! root.leaf(.selfSigned).tlsCertificate.publicKey], performDefaultValidation: false)
        }
        let refused = try await session.request("https://127.0.0.1:\(server.port)/").serializingResponse().value
        #expect(refused.error?.kind == "serverTrust(publicKeyPinningFailed)", "\(String(describing: refused.error))")
        #expect(server.requestsAnswered == 1)
        await server.stop()
    }

    /// The same with evaluators of the caller's own that differ only in a
    /// closure: the one handed out now judges the next request, which a
    /// client made for the first one would have sent on its connection.
    @Test func aNewEvaluatorDifferingOnlyInAClosureIsUsedAtOnce() async throws {
        struct Closure: ServerTrustEvaluating {
            let check: @Sendable () throws -> Void
            func evaluate(_ trust: ServerTrust, forHost host: String) throws { try check() }
        }
        let server = try await TLSTestServer(identity: try root.leaf(.good))
        let manager = RotatingManager(Closure {})
        let session = Session(transport: Self.transport(trusting: root.ca), serverTrustManager: manager)
        Self.expectOK(try await session.request("https://127.0.0.1:\(server.port)/").serializingResponse().value)
        manager.current.withLock { $0 = Closure { throw TestError(27) } }
        let refused = try await session.request("https://127.0.0.1:\(server.port)/").serializingResponse().value
        #expect(refused.error?.kind == "serverTrust(customEvaluationFailed)", "\(String(describing: refused.error))")
        #expect(refused.error?.underlyingError as? TestError == TestError(27))
        #expect(server.requestsAnswered == 1)
        await server.stop()
    }

    @Test func emptyPinsAreReportedAsSuch() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.selfSigned))
        Self.expectRefused(try await Self.get(server, evaluators: ["127.0.0.1": PinnedCertificatesTrustEvaluator(certificates: [])]),
                           "noCertificatesFound", by: server)
        Self.expectRefused(try await Self.get(server, evaluators: ["127.0.0.1": PublicKeysTrustEvaluator(keys: [])]),
                           "noPublicKeysFound", by: server)
        await server.stop()
    }

    // MARK: - Every connection is judged

    /// The server closes each connection after answering, so every request
    /// is a new handshake: a rotated certificate is judged as presented.
    @Test func aRotatedCertificateIsJudgedOnTheNextConnection() async throws {
        let key = P256.Signing.PrivateKey()
        let first = try root.leaf(.selfSigned, key: key)
        let server = try await TLSTestServer(identity: first)
        let manager = ServerTrustManager(evaluators: [
            "127.0.0.1": PinnedCertificatesTrustEvaluator(certificates: [try first.tlsCertificate], performDefaultValidation: false),
            "localhost": PublicKeysTrustEvaluator(keys: [try first.tlsCertificate.publicKey], performDefaultValidation: false),
        ])
        let session = Session(transport: AsyncHTTPClientTransport(), serverTrustManager: manager)
        let byCertificate = URL(string: "https://127.0.0.1:\(server.port)/tls")!
        let byKey = URL(string: "https://localhost:\(server.port)/tls")!
        Self.expectOK(try await session.request(byCertificate).serializingResponse().value)

        // Renewed with the same key: the certificate pin fails, the key pin holds.
        try server.present(try root.leaf(.selfSigned, key: key))
        let renewed = try await session.request(byCertificate).serializingResponse().value
        #expect(renewed.error?.kind == "serverTrust(certificatePinningFailed)", "\(String(describing: renewed.error))")
        Self.expectOK(try await session.request(byKey).serializingResponse().value)

        // A new key: both fail.
        try server.present(try root.leaf(.selfSigned))
        let rekeyed = try await session.request(byKey).serializingResponse().value
        #expect(rekeyed.error?.kind == "serverTrust(publicKeyPinningFailed)", "\(String(describing: rekeyed.error))")
        #expect(server.requestsAnswered == 2)
        await server.stop()
    }

    // MARK: - The manager

    @Test func eachHostHasItsOwnEvaluatorInOneSession() async throws {
        let a = try root.leaf(.selfSigned)
        let b = try root.leaf(.selfSigned)
        let serverA = try await TLSTestServer(identity: a)
        let serverB = try await TLSTestServer(identity: b)
        let manager = ServerTrustManager(evaluators: [
            "127.0.0.1": PinnedCertificatesTrustEvaluator(certificates: [try a.tlsCertificate], acceptSelfSignedCertificates: true),
            "localhost": PinnedCertificatesTrustEvaluator(certificates: [try b.tlsCertificate], acceptSelfSignedCertificates: true),
        ])
        let session = Session(transport: AsyncHTTPClientTransport(), serverTrustManager: manager)
        Self.expectOK(try await session.request("https://127.0.0.1:\(serverA.port)/").serializingResponse().value)
        Self.expectOK(try await session.request("https://localhost:\(serverB.port)/").serializingResponse().value)
        let crossed = try await session.request("https://localhost:\(serverA.port)/").serializingResponse().value
        #expect(crossed.error?.kind == "serverTrust(defaultEvaluationFailed)", "\(String(describing: crossed.error))")
        #expect(serverA.requestsAnswered == 1)
        await serverA.stop()
        await serverB.stop()
    }

    @Test func aHostWithoutAnEvaluatorIsRefusedWhenAllMustBeEvaluated() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.selfSigned))
        Self.expectRefused(try await Self.get(server, evaluators: ["localhost": DisabledTrustEvaluator()]), "noRequiredEvaluator", by: server)
        // Not required: the transport's own checks apply (and refuse a self-signed certificate).
        let unchecked = try await Self.get(server, evaluators: [:], allHostsMustBeEvaluated: false)
        #expect(unchecked.error?.urlError?.code == .serverCertificateUntrusted, "\(String(describing: unchecked.error))")
        #expect(server.requestsAnswered == 0)
        await server.stop()
    }

    @Test func revocationCannotBeCheckedHereSoItFailsClosed() async throws {
        let server = try await TLSTestServer(identity: try root.leaf(.good))
        let response = try await Self.get(
            server, evaluators: ["127.0.0.1": RevocationTrustEvaluator()], transport: Self.transport(trusting: root.ca)
        )
        await server.stop()
        Self.expectRefused(response, "revocationCheckFailed", by: server, detail: "cannot check revocation")
    }

    @Test func aCustomEvaluatorsErrorIsACustomEvaluationFailure() async throws {
        struct Refusing: ServerTrustEvaluating {
            func evaluate(_ trust: ServerTrust, forHost host: String) throws {
                #expect(trust.certificates.count == 1)
                #expect(host == "127.0.0.1")
                throw TestError(25)
            }
        }
        let server = try await TLSTestServer(identity: try root.leaf(.good))
        let response = try await Self.get(server, evaluators: ["127.0.0.1": Refusing()], transport: Self.transport(trusting: root.ca))
        await server.stop()
        Self.expectRefused(response, "customEvaluationFailed", by: server)
        #expect(response.error?.underlyingError as? TestError == TestError(25))
    }

    /// Side by side: the same evaluator on URLSession (libcurl) cannot run,
    /// so the request is refused before it is sent, naming this transport.
    @Test func onURLSessionAnEvaluatedHostIsRefusedNeverSentUnpinned() async throws {
        let leaf = try root.leaf(.selfSigned)
        let server = try await TLSTestServer(identity: leaf)
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try leaf.tlsCertificate], acceptSelfSignedCertificates: true)
        let session = Session(configuration: .ephemeral, serverTrustManager: ServerTrustManager(evaluators: ["127.0.0.1": pinned]))
        let response = try await session.request("https://127.0.0.1:\(server.port)/tls").serializingResponse().value
        await server.stop()
        Self.expectRefused(response, "transportCannotEvaluate", by: server, detail: "AsyncHTTPClientTransport")
    }

    // MARK: - Mutual TLS

    @Test func aServerThatRequiresAClientCertificateGetsOneFromPEMFiles() async throws {
        let clientCA = try TestCertificates(name: "Client CA")
        let server = try await TLSTestServer(identity: try root.leaf(.good), clientCertificatesFrom: clientCA.ca)
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [try root.tlsCertificate], acceptSelfSignedCertificates: true)

        let anonymous = try await Self.get(server, evaluators: ["127.0.0.1": pinned])
        // In TLS 1.3 the client's handshake ends before the server judges its
        // certificate: the server's alert may arrive as the connection's end.
        let refusal: Set<URLError.Code> = [.clientCertificateRequired, .networkConnectionLost]
        #expect(anonymous.error?.urlError.map { refusal.contains($0.code) } == true, "\(String(describing: anonymous.error))")
        #expect(server.requestsAnswered == 0)

        let directory = try TemporaryDirectory()
        let client = try clientCA.leaf(.client)
        let chainFile = directory.url.appendingPathComponent("client.pem").path
        let keyFile = directory.url.appendingPathComponent("client-key.pem").path
        try client.tlsCertificate.pemEncoded.write(toFile: chainFile, atomically: true, encoding: .utf8)
        try client.keyPEM.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let identity = try TLSClientIdentity(certificateChainFile: chainFile, privateKeyFile: keyFile)
        let response = try await Self.get(
            server, evaluators: ["127.0.0.1": pinned], transport: AsyncHTTPClientTransport(clientIdentity: identity)
        )
        Self.expectOK(response)
        await server.stop()
    }

    @Test func aMissingOrBrokenIdentityFileIsAClearError() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.pem").path
        let garbage = directory.url.appendingPathComponent("garbage.pem").path
        try "not a certificate".write(toFile: garbage, atomically: true, encoding: .utf8)
        #expect {
            try TLSClientIdentity(certificateChainFile: missing, privateKeyFile: garbage)
        } throws: { ($0 as? TLSCertificateError)?.description.contains("cannot read") == true }
        #expect {
            try TLSClientIdentity(certificateChainFile: garbage, privateKeyFile: garbage)
        } throws: { $0 as? TLSCertificateError == .notACertificate(source: garbage) }
    }
}

/// Hands out whichever evaluator a test set last, for every host.
private final class RotatingManager: ServerTrustManager, @unchecked Sendable {
    // @unchecked Sendable: its one mutable value sits behind a lock, `current`.
    let current: Mutex<any ServerTrustEvaluating>
    init(_ evaluator: any ServerTrustEvaluating) {
        current = Mutex(evaluator)
        super.init(evaluators: [:])
    }
    override func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
        current.withLock { $0 }
    }
}
