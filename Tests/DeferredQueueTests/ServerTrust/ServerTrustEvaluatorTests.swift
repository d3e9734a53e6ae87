import DeferredQueue
import Foundation
import TestSupport
import Testing

/// Alamofire's evaluators, judged on scripted trusts: which checks each
/// runs, in which order, what it requires of the handshake, and how it fails.
@Suite("Server trust evaluators and the manager")
struct ServerTrustEvaluatorTests {
    let certificate: TLSCertificate
    let other: TLSCertificate

    init() throws {
        certificate = try TLSCertificateTests.certificate
        // The same DER with another serial number byte: another certificate, same key.
        var bytes = certificate.derBytes
        bytes[15] ^= 1
        other = try TLSCertificate(derEncoded: bytes)
    }

    func reason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as HTTPError {
            guard case .serverTrustEvaluationFailed(let reason) = error else { return "other HTTPError" }
            return reason.kind
        } catch {
            return "\(error)"
        }
    }

    @Test func theDefaultEvaluatorChecksTheHostThenTheChain() {
        let validator = ScriptedValidator()
        #expect(reason { try DefaultTrustEvaluator().evaluate(validator.trust(certificates: [certificate]), forHost: "pinning.test") } == nil)
        #expect(validator.calls == ["host(pinning.test)", "chain(pinning.test)"])
        let noHost = ScriptedValidator(hostPasses: false)
        #expect(reason { try DefaultTrustEvaluator(validateHost: false).evaluate(noHost.trust(certificates: []), forHost: "h") } == nil)
        #expect(noHost.calls == ["chain(h)"])
        #expect(reason { try DefaultTrustEvaluator().evaluate(noHost.trust(certificates: []), forHost: "h") } == "hostValidationFailed")
        let noChain = ScriptedValidator(chainPasses: false)
        #expect(reason { try DefaultTrustEvaluator().evaluate(noChain.trust(certificates: []), forHost: "h") } == "defaultEvaluationFailed")
        #expect(DefaultTrustEvaluator().handshakeRequirements == .default)
    }

    @Test func pinnedCertificatesMustBeInTheChain() {
        let pinned = PinnedCertificatesTrustEvaluator(certificates: [certificate])
        let validator = ScriptedValidator()
        #expect(reason { try pinned.evaluate(validator.trust(certificates: [certificate]), forHost: "h") } == nil)
        #expect(validator.calls == ["chain(h)", "host(h)"])
        #expect(reason { try pinned.evaluate(validator.trust(certificates: [other]), forHost: "h") } == "certificatePinningFailed")
        #expect(reason { try pinned.evaluate(ScriptedValidator(chainPasses: false).trust(certificates: [certificate]), forHost: "h") }
            == "defaultEvaluationFailed")
        let pinOnly = PinnedCertificatesTrustEvaluator(certificates: [certificate], performDefaultValidation: false, validateHost: false)
        let unchecked = ScriptedValidator(chainPasses: false, hostPasses: false)
        #expect(reason { try pinOnly.evaluate(unchecked.trust(certificates: [other, certificate]), forHost: "h") } == nil)
        #expect(unchecked.calls.isEmpty)
        #expect(reason { try PinnedCertificatesTrustEvaluator(certificates: []).evaluate(validator.trust(certificates: []), forHost: "h") }
            == "noCertificatesFound")
    }

    @Test func acceptingSelfSignedCertificatesMakesThePinsTheOnlyAnchors() {
        let accepting = PinnedCertificatesTrustEvaluator(certificates: [certificate], acceptSelfSignedCertificates: true)
        #expect(accepting.handshakeRequirements == ServerTrustRequirements(validatesChain: true, anchorCertificates: [certificate]))
        #expect(PinnedCertificatesTrustEvaluator(certificates: [certificate]).handshakeRequirements == .default)
        let unvalidated = PinnedCertificatesTrustEvaluator(certificates: [certificate], performDefaultValidation: false)
        #expect(unvalidated.handshakeRequirements.validatesChain == false)
        // Nothing pinned: the evaluator, not an impossible handshake, says so.
        #expect(PinnedCertificatesTrustEvaluator(certificates: [], acceptSelfSignedCertificates: true).handshakeRequirements == .none)
    }

    @Test func pinnedKeysMustBeInTheChain() {
        let pinned = PublicKeysTrustEvaluator(keys: [certificate.publicKey])
        let validator = ScriptedValidator()
        // `other` has the same key: a renewed certificate keeps its pin.
        #expect(reason { try pinned.evaluate(validator.trust(certificates: [other]), forHost: "h") } == nil)
        #expect(validator.calls == ["chain(h)", "host(h)"])
        #expect(reason { try pinned.evaluate(validator.trust(certificates: []), forHost: "h") } == "publicKeyPinningFailed")
        #expect(reason { try PublicKeysTrustEvaluator(keys: []).evaluate(validator.trust(certificates: [certificate]), forHost: "h") }
            == "noPublicKeysFound")
        #expect(PublicKeysTrustEvaluator(keys: [], performDefaultValidation: true).handshakeRequirements == .none)
    }

    @Test func revocationIsCheckedAfterTheChainAndHost() {
        let validator = ScriptedValidator()
        let evaluator = RevocationTrustEvaluator(options: [.ocsp, .requirePositiveResponse])
        #expect(reason { try evaluator.evaluate(validator.trust(certificates: []), forHost: "h") } == nil)
        #expect(validator.calls == ["chain(h)", "host(h)", "revocation(9)"])
        #expect(RevocationTrustEvaluator.Options.any == [.ocsp, .crl])
    }

    @Test func aCompositeRunsEveryEvaluatorInOrderAndCombinesTheirRequirements() {
        let validator = ScriptedValidator()
        let composite = CompositeTrustEvaluator(evaluators: [
            DefaultTrustEvaluator(validateHost: false),
            PinnedCertificatesTrustEvaluator(certificates: [certificate], acceptSelfSignedCertificates: true, validateHost: false),
            RevocationTrustEvaluator(performDefaultValidation: false, validateHost: false),
        ])
        #expect(reason { try composite.evaluate(validator.trust(certificates: [certificate]), forHost: "h") } == nil)
        #expect(validator.calls == ["chain(h)", "chain(h)", "revocation(3)"])
        #expect(composite.handshakeRequirements == ServerTrustRequirements(validatesChain: true, anchorCertificates: [certificate]))
        let failing = CompositeTrustEvaluator(evaluators: [PinnedCertificatesTrustEvaluator(certificates: []), DisabledTrustEvaluator()])
        #expect(reason { try failing.evaluate(validator.trust(certificates: []), forHost: "h") } == "noCertificatesFound")
        #expect(CompositeTrustEvaluator(evaluators: [DisabledTrustEvaluator()]).handshakeRequirements == .none)
    }

    @Test func requirementsCombineToTheStricterChainCheckAndEveryAnchor() {
        let a = ServerTrustRequirements(validatesChain: false, anchorCertificates: [certificate])
        let b = ServerTrustRequirements(validatesChain: true, anchorCertificates: [other, certificate])
        #expect(a.combined(with: b) == ServerTrustRequirements(validatesChain: true, anchorCertificates: [certificate, other]))
        #expect(ServerTrustRequirements.none.combined(with: .default) == .default)
        #expect(ServerTrustRequirements.none.combined(with: a) == a)
    }

    @Test func theDisabledEvaluatorAsksNothing() {
        let validator = ScriptedValidator(chainPasses: false, hostPasses: false)
        #expect(reason { try DisabledTrustEvaluator().evaluate(validator.trust(certificates: []), forHost: "h") } == nil)
        #expect(validator.calls.isEmpty)
        #expect(DisabledTrustEvaluator().handshakeRequirements == .none)
    }

    // MARK: - The manager

    @Test func hostsMatchWithoutRegardToCaseOrATrailingDot() throws {
        let manager = ServerTrustManager(evaluators: ["API.example.com": DisabledTrustEvaluator(), "[::1]": DefaultTrustEvaluator()])
        for host in ["api.example.com", "API.EXAMPLE.COM", "api.example.com.", "Api.Example.Com."] {
            #expect(try manager.serverTrustEvaluator(forHost: host) is DisabledTrustEvaluator, "\(host)")
        }
        #expect(try manager.serverTrustEvaluator(forHost: "::1") is DefaultTrustEvaluator)
        #expect(reason { _ = try manager.serverTrustEvaluator(forHost: "www.example.com") } == "noRequiredEvaluator")
        #expect(reason { _ = try manager.serverTrustEvaluator(forHost: "api.example.com.evil") } == "noRequiredEvaluator")
        let lenient = ServerTrustManager(allHostsMustBeEvaluated: false, evaluators: [:])
        #expect(try lenient.serverTrustEvaluator(forHost: "anything") == nil)
        #expect(manager.evaluators.keys.sorted() == ["API.example.com", "[::1]"])
    }

    @Test func anInternationalizedHostMatchesItsASCIIForm() throws {
        let manager = ServerTrustManager(evaluators: ["Bücher.example": DisabledTrustEvaluator()])
        let host = try #require(URL(string: "https://bücher.example/")?.host)
        #expect(try manager.serverTrustEvaluator(forHost: host) is DisabledTrustEvaluator, "\(host)")
    }

    @Test func keysThatDifferOnlyInSpellingResolveTheSameWayEveryTime() throws {
        let manager = ServerTrustManager(evaluators: ["a.example": DisabledTrustEvaluator(), "A.EXAMPLE.": DefaultTrustEvaluator()])
        // Sorted, "A.EXAMPLE." comes first.
        #expect(try manager.serverTrustEvaluator(forHost: "a.example") is DefaultTrustEvaluator)
    }

    /// Alamofire's documented way to add wildcards: a subclass.
    // @unchecked Sendable, as every ServerTrustManager: it adds no state.
    final class WildcardManager: ServerTrustManager, @unchecked Sendable {
        override func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
            if let evaluator = try? super.serverTrustEvaluator(forHost: host) { return evaluator }
            let parent = host.split(separator: ".", maxSplits: 1).dropFirst().first.map { "*.\($0)" }
            return try super.serverTrustEvaluator(forHost: parent ?? host)
        }
    }

    @Test func aSubclassCanMatchWildcards() throws {
        let manager = WildcardManager(evaluators: ["*.example.com": DisabledTrustEvaluator()])
        #expect(try manager.serverTrustEvaluator(forHost: "api.example.com") is DisabledTrustEvaluator)
        #expect(reason { _ = try manager.serverTrustEvaluator(forHost: "example.com") } == "noRequiredEvaluator")
        #expect(reason { _ = try manager.serverTrustEvaluator(forHost: "a.b.example.com") } == "noRequiredEvaluator")
    }

    @Test func failuresDescribeThemselvesAndAreServerTrustErrors() {
        let error = HTTPError.serverTrustEvaluationFailed(reason: .transportCannotEvaluate(host: "h", transport: "URLSessionTransport"))
        #expect(error.isServerTrustEvaluationError)
        #expect(error.description.contains("AsyncHTTPClientTransport"))
        #expect(error.description.contains("nothing was sent"))
        #expect(!HTTPError.cancelled.isServerTrustEvaluationError)
        let custom = HTTPError.serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: TestError(7)))
        #expect(custom.underlyingError as? TestError == TestError(7))
    }
}
