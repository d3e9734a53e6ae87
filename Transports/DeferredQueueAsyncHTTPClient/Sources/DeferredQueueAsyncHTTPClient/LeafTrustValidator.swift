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
/// where swift-nio-ssl exposes the server's leaf certificate alone (not the
/// rest of the chain it presented). So a pin is found in the chain when it
/// is the leaf, when it issued the leaf (the leaf's signature verifies with
/// its key), or when it is among every anchor the handshake could have
/// ended on; anything further up fails closed.
struct LeafTrustValidator: ServerTrustValidator {
    let leaf: Certificate

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
        if let problem = HostNameMatch.problem(leaf, host: host) {
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
        if let der = trust.certificates.first, pinned.contains(der) { return true }
        if trust.handshake.validatesChain, let anchors = trust.handshake.anchorCertificates, !anchors.isEmpty,
           Set(anchors).isSubset(of: pinned) {
            return true
        }
        // Only a CA issues: a renewed self-signed leaf under the pinned one's
        // name and key is another certificate, as on Apple platforms.
        return pinned.contains { candidate in
            guard let issuer = try? Certificate(derEncoded: candidate.derBytes), issuer.subject == leaf.issuer,
                  case .isCertificateAuthority = try? issuer.extensions.basicConstraints
            else { return false }
            return issuer.publicKey.isValidSignature(leaf.signature, for: leaf)
        }
    }

    func chain(of trust: ServerTrust, includesAnyOf pinned: [TLSPublicKey]) -> Bool {
        if let key = trust.publicKeys.first, pinned.contains(key) { return true }
        return pinned.contains { candidate in
            guard let key = try? Certificate.PublicKey(derEncoded: candidate.derBytes) else { return false }
            return key.isValidSignature(leaf.signature, for: leaf)
        }
    }
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
