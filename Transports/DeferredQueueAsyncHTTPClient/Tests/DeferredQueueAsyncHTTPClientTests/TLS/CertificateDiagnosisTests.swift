import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOSSL
import Testing
@testable import DeferredQueueAsyncHTTPClient

/// The rules by which a chain BoringSSL rejected is classified, on
/// certificates made for the test (the live handshakes are in TLSFailureTests).
@Suite("CertificateDiagnosis: why a chain did not verify")
struct CertificateDiagnosisTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates()
    }

    @Test func aSelfSignedLeafIsSelfIssuedAndOneSignedByTheCAIsNot() throws {
        #expect(CertificateDiagnosis.isSelfIssued(try certificates.leaf(.selfSigned).certificate))
        #expect(CertificateDiagnosis.isSelfIssued(certificates.ca))
        #expect(!CertificateDiagnosis.isSelfIssued(try certificates.leaf(.good).certificate))
    }

    @Test func aSelfSignedLeafIsUntrustedUnlessTheConfigurationTrustsIt() throws {
        let leaf = try certificates.leaf(.selfSigned).certificate
        let now = time(nil)
        #expect(CertificateDiagnosis.failure(presenting: [leaf], anchors: [], now: now)?.code == .serverCertificateUntrusted)
        // Trusted by name, it failed for another reason: its dates, here.
        let later = leaf.notValidAfter + 1
        #expect(CertificateDiagnosis.failure(presenting: [leaf], anchors: [leaf], now: later)?.code == .serverCertificateHasBadDate)
    }

    @Test func theDatesOfEveryPresentedCertificateAreJudgedLeafFirst() throws {
        let leaf = try certificates.leaf(.good).certificate
        let chain = [leaf, certificates.ca]
        let now = time(nil)
        #expect(CertificateDiagnosis.failure(presenting: chain, anchors: [], now: now)?.code == .serverCertificateHasUnknownRoot)
        let early = try #require(CertificateDiagnosis.failure(presenting: chain, anchors: [], now: leaf.notValidBefore - 1))
        #expect(early.code == .serverCertificateNotYetValid)
        #expect(early.reason.contains("the server's certificate"))
        let late = try #require(CertificateDiagnosis.failure(presenting: chain, anchors: [], now: leaf.notValidAfter + 1))
        #expect(late.code == .serverCertificateHasBadDate)
        #expect(CertificateDiagnosis.failure(presenting: [], anchors: [], now: now) == nil)
    }

    @Test func aTruncatedCertificateIsNotSelfIssued() throws {
        #expect(CertificateDiagnosis.isSelfIssued(certificates.ca))
        let der = try certificates.ca.toDERBytes()
        // NIOSSL refuses to parse a truncated certificate at all; the check never traps on one it holds.
        #expect((try? NIOSSLCertificate(bytes: Array(der.prefix(40)), format: .der)) == nil)
    }
}
