import AsyncHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import X509

/// Finds why BoringSSL rejected a server's certificate chain.
///
/// BoringSSL says only `CERTIFICATE_VERIFY_FAILED`, and swift-nio-ssl keeps
/// neither the verification result nor the peer's certificates once the
/// handshake failed; AsyncHTTPClient offers no verification callback. So,
/// after such a failure, the diagnosis has a ``PresentedChainReader`` open
/// one more TLS handshake to the same host and port, with the client's TLS
/// configuration, take the certificates the server presents and reject
/// them: nothing of the request is ever sent. It then reads the chain:
///
/// 1. a self-signed leaf that the configuration does not trust explicitly:
///    `.serverCertificateUntrusted`;
/// 2. a certificate outside its validity period, the leaf first:
///    `.serverCertificateHasBadDate` (expired) or `.serverCertificateNotYetValid`;
/// 3. otherwise the chain leads to no trusted root:
///    `.serverCertificateHasUnknownRoot`.
///
/// A chain with several problems is reported by the first rule that fits
/// (BoringSSL itself would name the missing root before the dates). The
/// diagnosis runs only for a direct connection (not through a proxy), with
/// its own deadline; when it cannot connect or time runs out, the failure
/// stays `.serverCertificateUntrusted` ("could not be verified").
///
/// A class: every attempt of the client holds it, and a `TLSConfiguration`
/// is hundreds of bytes and a dozen references to copy into each one.
final class CertificateDiagnosis: Sendable {
    let tlsConfiguration: TLSConfiguration
    let group: any EventLoopGroup
    /// The certificates the configuration trusts by name (its own roots and
    /// additional roots given as certificates or a PEM file).
    let anchors: [NIOSSLCertificate]
    /// The longest a diagnosis waits (shorter when the request's timeout is).
    let deadline: TimeAmount

    /// A diagnosis for requests of a client with `configuration` on `group`;
    /// `nil` when the client connects through a proxy (a second connection
    /// would not reach the same server).
    init?(configuration: HTTPClient.Configuration, group: any EventLoopGroup, deadline: TimeAmount = PresentedChainReader.deadline) {
        guard configuration.proxy == nil else { return nil }
        self.deadline = deadline
        let tls = configuration.tlsConfiguration ?? .makeClientConfiguration()
        guard tls.certificateVerification != .none else { return nil }
        tlsConfiguration = tls
        self.group = group
        var anchors: [NIOSSLCertificate] = []
        switch tls.trustRoots {
        case .certificates(let certificates): anchors += certificates
        case .file(let path): anchors += (try? NIOSSLCertificate.fromPEMFile(path)) ?? []
        case .default, nil: break
        }
        for roots in tls.additionalTrustRoots {
            switch roots {
            case .certificates(let certificates): anchors += certificates
            case .file(let path): anchors += (try? NIOSSLCertificate.fromPEMFile(path)) ?? []
            }
        }
        self.anchors = anchors
    }

    /// Why `url`'s server presents a chain that does not verify; `nil` when
    /// the certificates could not be had within `deadline`.
    func diagnose(_ url: URL, within deadline: TimeAmount) -> EventLoopFuture<TLSFailure?> {
        let eventLoop = group.next()
        guard let host = url.host, !host.isEmpty, url.scheme?.lowercased() == "https" else {
            return eventLoop.makeSucceededFuture(nil)
        }
        let anchors = self.anchors
        let address = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return PresentedChainReader(tlsConfiguration: tlsConfiguration, group: group)
            .read(host: host, connectingTo: .host(address, port: url.port ?? 443), within: deadline)
            .map { Self.failure(presenting: $0, anchors: anchors, now: time(nil)) }
    }

    /// The failure for a `chain` (leaf first) that did not verify, by the
    /// rules above; `nil` for an empty chain.
    static func failure(presenting chain: [NIOSSLCertificate], anchors: [NIOSSLCertificate], now: time_t) -> TLSFailure? {
        guard let leaf = chain.first else { return nil }
        if isSelfIssued(leaf), !anchors.contains(leaf) {
            return TLSFailure(.serverCertificateUntrusted, "the server's certificate is self-signed, and not trusted")
        }
        for (index, certificate) in chain.enumerated() {
            let which = index == 0 ? "the server's certificate" : "a certificate in the server's chain"
            if now > certificate.notValidAfter {
                return TLSFailure(.serverCertificateHasBadDate, "\(which) has expired")
            }
            if now < certificate.notValidBefore {
                return TLSFailure(.serverCertificateNotYetValid, "\(which) is not yet valid")
            }
        }
        return TLSFailure(
            .serverCertificateHasUnknownRoot,
            "the server's certificate was issued by a certificate authority that is not trusted"
        )
    }

    /// Whether `certificate` names itself as its issuer.
    static func isSelfIssued(_ certificate: NIOSSLCertificate) -> Bool {
        guard let der = try? certificate.toDERBytes(), let parsed = try? Certificate(derEncoded: der) else { return false }
        return parsed.issuer == parsed.subject
    }
}
