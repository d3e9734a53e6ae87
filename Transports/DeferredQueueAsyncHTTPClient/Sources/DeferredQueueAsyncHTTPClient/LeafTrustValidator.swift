#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DeferredQueue
import SwiftASN1
import X509

/// A ``ServerTrust``'s checks on this transport, after a handshake in which
/// BoringSSL already verified what the evaluator's ``ServerTrustRequirements``
/// asked for (the chain, against the anchors it named).
///
/// AsyncHTTPClient hands over the connection's channel after the handshake,
/// where swift-nio-ssl exposes the server's leaf alone. ``path`` holds the
/// certificates above it that are believed: each a CA whose key signed the
/// one below (read by a ``PresentedChainReader`` when the leaf alone did not
/// match a pin). A pin is in the chain when it is on the path, when its key
/// signed the path's last certificate (a root the server does not send), or
/// when it is among every anchor the handshake could have ended on.
struct LeafTrustValidator: ServerTrustValidator {
    let leaf: ChainCertificate
    /// The believed certificates above the leaf, in order.
    let path: [ChainCertificate]

    /// The validator of `leaf`, with the longest path up through
    /// `presented` whose signatures hold.
    init(leaf: ChainCertificate, presented: [ChainCertificate] = []) {
        self.leaf = leaf
        var path: [ChainCertificate] = []
        var current = leaf
        while path.count < 8, let issuer = presented.first(where: { $0.issued(current) && $0 != leaf && !path.contains($0) }) {
            path.append(issuer)
            current = issuer
        }
        self.path = path
    }

    /// The leaf and its believed path: the trust's certificates.
    var certificates: [TLSCertificate] { ([leaf] + path).compactMap { try? TLSCertificate(derEncoded: $0.der) } }

    func validateChain(of trust: ServerTrust, forHost host: String) throws {
        guard trust.handshake.validatesChain else {
            throw HTTPError.serverTrustEvaluationFailed(reason: .defaultEvaluationFailed(output: .init(
                host: host, trust: trust,
                detail: "the evaluator's handshakeRequirements did not ask the TLS handshake to verify the chain, "
                    + "and AsyncHTTPClientTransport cannot verify it afterwards"
            )))
        }
    }

    func validateHost(_ host: String, of trust: ServerTrust) throws {
        if let problem = HostNameMatch.problem(leaf.x509, host: host) {
            throw HTTPError.serverTrustEvaluationFailed(reason: .hostValidationFailed(output: .init(
                host: host, trust: trust, detail: problem
            )))
        }
    }

    func checkRevocation(of trust: ServerTrust, options: RevocationTrustEvaluator.Options) throws {
        throw HTTPError.serverTrustEvaluationFailed(reason: .revocationCheckFailed(
            output: .init(
                host: trust.host, trust: trust,
                detail: "AsyncHTTPClientTransport cannot check revocation (swift-nio-ssl offers no OCSP or CRL "
                    + "checks), so the request was refused rather than sent unchecked"
            ),
            options: options
        ))
    }

    func chain(of trust: ServerTrust, includesAnyOf pinned: [TLSCertificate]) -> Bool {
        if !Set(trust.certificates).isDisjoint(with: pinned) { return true }
        if trust.handshake.validatesChain, let anchors = trust.handshake.anchorCertificates, !anchors.isEmpty,
           Set(anchors).isSubset(of: pinned) {
            return true
        }
        let top = path.last ?? leaf
        return pinned.contains { candidate in
            guard let issuer = ChainCertificate(der: candidate.derBytes) else { return false }
            return issuer.issued(top)
        }
    }

    func chain(of trust: ServerTrust, includesAnyOf pinned: [TLSPublicKey]) -> Bool {
        if !Set(trust.publicKeys).isDisjoint(with: pinned) { return true }
        let top = path.last ?? leaf
        return pinned.contains { candidate in
            guard let key = try? Certificate.PublicKey(derEncoded: candidate.derBytes) else { return false }
            return key.isValidSignature(top.x509.signature, for: top.x509)
        }
    }
}

/// A certificate with its DER bytes.
struct ChainCertificate: Sendable, Equatable {
    let x509: Certificate
    let der: [UInt8]

    init?(der: [UInt8]) {
        guard let x509 = try? Certificate(derEncoded: der) else { return nil }
        self.x509 = x509
        self.der = der
    }

    /// Whether this certificate issued `certificate`: it is a CA, its subject
    /// is the other's issuer, and its key verifies the other's signature.
    /// (A certificate that is not a CA issues nothing: a renewed self-signed
    /// leaf under a pinned one's name and key is another certificate.)
    func issued(_ certificate: ChainCertificate) -> Bool {
        guard x509.subject == certificate.x509.issuer,
              case .isCertificateAuthority = try? x509.extensions.basicConstraints
        else { return false }
        return x509.publicKey.isValidSignature(certificate.x509.signature, for: certificate.x509)
    }

    static func == (lhs: ChainCertificate, rhs: ChainCertificate) -> Bool { lhs.der == rhs.der }
}

/// Whether a certificate is valid for a host name or IP address, by its
/// subject alternative names (RFC 6125, as browsers apply it: no fallback
/// to the common name; a wildcard only as the whole left-most label of a
/// DNS name with at least two more labels, matching one label; IP addresses
/// only against IP address entries).
enum HostNameMatch {
    /// `nil` when `leaf` is valid for `host`; otherwise why not.
    static func problem(_ leaf: Certificate, host: String) -> String? {
        guard let names = try? leaf.extensions.subjectAlternativeNames, !names.isEmpty else {
            return "the certificate names no subject alternative name"
        }
        if let address = ipAddressBytes(host) {
            for case .ipAddress(let entry) in names where Array(entry.bytes) == address { return nil }
            return "the certificate is not valid for the IP address \(host)"
        }
        let wanted = normalized(host)
        for case .dnsName(let name) in names where matches(pattern: normalized(name), host: wanted) { return nil }
        return "the certificate is not valid for the host name \(host)"
    }

    static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        return name
    }

    static func matches(pattern: String, host: String) -> Bool {
        guard !pattern.isEmpty, !host.isEmpty else { return false }
        guard pattern.hasPrefix("*.") else { return pattern == host }
        let suffix = pattern.dropFirst(2)
        // "*.com" would cover a whole top-level domain.
        guard suffix.contains("."), !suffix.contains("*"), let dot = host.firstIndex(of: ".") else { return false }
        return host[host.index(after: dot)...] == suffix && host[..<dot].isEmpty == false
    }

    /// The address bytes of an IPv4 or IPv6 literal (brackets allowed), else `nil`.
    static func ipAddressBytes(_ host: String) -> [UInt8]? {
        var literal = host
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

/// The trust of a server whose certificate the handshake refused: nothing
/// about it can be confirmed.
struct RefusedHandshakeValidator: ServerTrustValidator {
    func validateChain(of trust: ServerTrust, forHost host: String) throws {
        throw HTTPError.serverTrustEvaluationFailed(reason: .defaultEvaluationFailed(output: .init(
            host: host, trust: trust, detail: "the TLS handshake refused the server's certificate"
        )))
    }

    func validateHost(_ host: String, of trust: ServerTrust) throws {
        throw HTTPError.serverTrustEvaluationFailed(reason: .hostValidationFailed(output: .init(
            host: host, trust: trust, detail: "the TLS handshake refused the server's certificate"
        )))
    }

    func checkRevocation(of trust: ServerTrust, options: RevocationTrustEvaluator.Options) throws {
        throw HTTPError.serverTrustEvaluationFailed(reason: .revocationCheckFailed(
            output: .init(host: trust.host, trust: trust, detail: "the TLS handshake refused the server's certificate"),
            options: options
        ))
    }
}
