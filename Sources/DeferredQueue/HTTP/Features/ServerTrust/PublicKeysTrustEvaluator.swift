import Foundation

/// Trusts a server only if a certificate of its chain has one of the pinned
/// public keys: pins that survive a certificate's renewal with the same key.
///
/// On AsyncHTTPClient the chain is the leaf the connection presented and
/// the certificates above it whose signatures chain up from it; a pinned
/// root key the server does not send is found when it signed the top of
/// that chain.
public final class PublicKeysTrustEvaluator: ServerTrustEvaluating {
    private let keys: [TLSPublicKey]
    private let performDefaultValidation: Bool
    private let validateHost: Bool

    /// - Parameters:
    ///   - keys: The pinned keys. Default: those of the main bundle's
    ///     certificates (``TLSCertificate/certificates(in:)``).
    ///   - performDefaultValidation: Verify the chain. Default `true`.
    ///   - validateHost: Check the leaf against the host. Default `true`.
    public init(
        keys: [TLSPublicKey] = TLSCertificate.certificates(in: .main).publicKeys,
        performDefaultValidation: Bool = true,
        validateHost: Bool = true
    ) {
        self.keys = keys
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
    }

    public var handshakeRequirements: ServerTrustRequirements {
        keys.isEmpty ? .none : ServerTrustRequirements(validatesChain: performDefaultValidation)
    }

    public func evaluate(_ trust: ServerTrust, forHost host: String) throws {
        guard !keys.isEmpty else {
            throw HTTPError.serverTrustEvaluationFailed(reason: .noPublicKeysFound)
        }
        try trust.validate(forHost: host, chain: performDefaultValidation, hostName: validateHost)
        guard trust.chainIncludes(anyOf: keys) else {
            throw HTTPError.serverTrustEvaluationFailed(reason: .publicKeyPinningFailed(
                host: host, trust: trust, pinnedKeys: keys, serverKeys: trust.publicKeys
            ))
        }
    }
}

extension ServerTrustEvaluating where Self == PublicKeysTrustEvaluator {
    /// A ``PublicKeysTrustEvaluator`` with its defaults.
    public static var publicKeys: PublicKeysTrustEvaluator { PublicKeysTrustEvaluator() }

    /// A ``PublicKeysTrustEvaluator``.
    public static func publicKeys(
        keys: [TLSPublicKey] = TLSCertificate.certificates(in: .main).publicKeys,
        performDefaultValidation: Bool = true,
        validateHost: Bool = true
    ) -> PublicKeysTrustEvaluator {
        PublicKeysTrustEvaluator(keys: keys, performDefaultValidation: performDefaultValidation, validateHost: validateHost)
    }
}
