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

/// Finds why BoringSSL rejected a server's certificate chain.
///
/// BoringSSL says only `CERTIFICATE_VERIFY_FAILED`, and swift-nio-ssl keeps
/// neither the verification result nor the peer's certificates once the
/// handshake failed; AsyncHTTPClient offers no verification callback. So,
/// after such a failure, the diagnosis opens one more TLS handshake to the
/// same host and port, with the client's TLS configuration, takes the
/// certificates the server presents, and rejects them: the handshake fails
/// there and nothing of the request is ever sent. It then reads the chain:
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
struct CertificateDiagnosis: Sendable {
    let tlsConfiguration: TLSConfiguration
    let group: any EventLoopGroup
    /// The certificates the configuration trusts by name (its own roots and
    /// additional roots given as certificates or a PEM file).
    let anchors: [NIOSSLCertificate]

    /// The longest a diagnosis takes, connection included.
    static let deadline = TimeAmount.seconds(10)

    /// A diagnosis for requests of a client with `configuration` on `group`;
    /// `nil` when the client connects through a proxy (a second connection
    /// would not reach the same server).
    init?(configuration: HTTPClient.Configuration, group: any EventLoopGroup) {
        guard configuration.proxy == nil else { return nil }
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
    /// the certificates could not be had.
    func diagnose(_ url: URL) -> EventLoopFuture<TLSFailure?> {
        let eventLoop = group.next()
        guard let host = url.host, !host.isEmpty, url.scheme?.lowercased() == "https",
            let context = try? NIOSSLContext(configuration: tlsConfiguration),
            let bootstrap = ClientBootstrap(validatingGroup: eventLoop)
        else { return eventLoop.makeSucceededFuture(nil) }
        let presented = PresentedChain()
        // As AsyncHTTPClient does: no server name indication for an address.
        let serverName = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
        let connected = bootstrap.connectTimeout(Self.deadline).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let handler = try NIOSSLClientHandler(
                    context: context, serverHostname: serverName,
                    customVerificationCallback: { chain, verdict in
                        presented.set(chain)
                        verdict.succeed(.failed)
                    }
                )
                try channel.pipeline.syncOperations.addHandler(handler)
            }
        }.connect(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: url.port ?? 443)
        let anchors = self.anchors
        return connected.flatMap { channel in
            let timer = channel.eventLoop.scheduleTask(in: Self.deadline) { channel.close(promise: nil) }
            return channel.closeFuture.always { _ in timer.cancel() }
        }.map { _ in
            Self.failure(presenting: presented.get(), anchors: anchors, now: time(nil))
        }.recover { _ in
            Self.failure(presenting: presented.get(), anchors: anchors, now: time(nil))
        }
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
        guard let der = try? certificate.toDERBytes(), let names = DERNames(certificate: der[...]) else { return false }
        return names.issuer == names.subject
    }
}

/// The chain a server presented to a diagnosis (set on its event loop, read
/// after the connection closed); its one lock is `chain`.
private final class PresentedChain: Sendable {
    private let chain = Mutex<[NIOSSLCertificate]>([])
    func set(_ certificates: [NIOSSLCertificate]) { chain.withLock { $0 = certificates } }
    func get() -> [NIOSSLCertificate] { chain.withLock { $0 } }
}

/// The issuer and subject of a DER-encoded X.509 certificate, as their raw
/// encodings (equal encodings: the same name).
struct DERNames {
    let issuer: ArraySlice<UInt8>
    let subject: ArraySlice<UInt8>

    /// Reads `Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version
    /// OPTIONAL, serialNumber, signature, issuer, validity, subject, … } … }`.
    init?(certificate: ArraySlice<UInt8>) {
        guard let outer = Self.element(certificate), outer.tag == 0x30,
            let tbs = Self.element(outer.content), tbs.tag == 0x30,
            var field = Self.element(tbs.content)
        else { return nil }
        if field.tag == 0xA0 {  // the version
            guard let next = Self.element(field.rest) else { return nil }
            field = next
        }
        // serialNumber, then signature, then issuer, validity, subject.
        guard field.tag == 0x02, let signature = Self.element(field.rest), let issuer = Self.element(signature.rest),
            let validity = Self.element(issuer.rest), let subject = Self.element(validity.rest),
            issuer.tag == 0x30, subject.tag == 0x30
        else { return nil }
        (self.issuer, self.subject) = (issuer.content, subject.content)
    }

    /// The first DER element of `bytes`: its tag, content and what follows.
    static func element(_ bytes: ArraySlice<UInt8>) -> (tag: UInt8, content: ArraySlice<UInt8>, rest: ArraySlice<UInt8>)? {
        var index = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let tag = bytes[index]
        index += 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), bytes.endIndex - index >= count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard bytes.endIndex - index >= length else { return nil }
        return (tag, bytes[index..<index + length], bytes[(index + length)...])
    }
}
