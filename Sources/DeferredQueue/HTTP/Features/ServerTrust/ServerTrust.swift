/// A server's TLS credentials as a transport saw them in the handshake, for
/// a ``ServerTrustEvaluating`` to judge: Alamofire's `SecTrust`, on every
/// platform.
///
/// Transports differ in when they can check a chain: URLSession on Apple
/// platforms evaluates a `SecTrust` after the handshake; AsyncHTTPClient
/// (BoringSSL) verifies the chain during it, against the anchors the
/// evaluator asked for in ``ServerTrustEvaluating/handshakeRequirements``,
/// and can read only the server's leaf certificate afterwards. The methods
/// below hide that difference: each either checks or confirms that the
/// transport already did, and throws ``HTTPError/serverTrustEvaluationFailed(reason:)``.
public struct ServerTrust: Sendable {
    /// The host the connection is for.
    public let host: String
    /// The server's certificates as the transport can read them, leaf first:
    /// the verified chain on Apple platforms, the leaf alone on AsyncHTTPClient.
    public let certificates: [TLSCertificate]
    /// What the TLS handshake itself verified.
    public let handshake: ServerTrustRequirements
    let validator: any ServerTrustValidator

    /// Creates the trust a transport hands to an evaluator.
    ///
    /// - Parameters:
    ///   - host: The host the connection is for.
    ///   - certificates: The server's certificates, leaf first.
    ///   - handshake: What the handshake verified.
    ///   - validator: The transport's checks behind the methods below.
    public init(
        host: String, certificates: [TLSCertificate], handshake: ServerTrustRequirements,
        validator: any ServerTrustValidator
    ) {
        self.host = host
        self.certificates = certificates
        self.handshake = handshake
        self.validator = validator
    }

    /// The public keys of ``certificates``.
    public var publicKeys: [TLSPublicKey] { certificates.publicKeys }

    /// The certificates' DER bytes, as Alamofire's `certificateData`.
    public var certificateData: [[UInt8]] { certificates.map(\.derBytes) }

    /// Checks that the chain leads to a trusted anchor and every certificate
    /// in it is within its dates (Alamofire's default validation, which does
    /// not check the host name).
    public func performDefaultValidation(forHost host: String) throws {
        try validator.validateChain(of: self, forHost: host)
    }

    /// Checks that the leaf certificate is valid for `host` (its subject
    /// alternative names, wildcards as RFC 6125 allows).
    public func performValidation(forHost host: String) throws {
        try validator.validateHost(host, of: self)
    }

    /// The chain (if `chain`), then the host name (if `hostName`): the
    /// pinning evaluators' checks before their pins, in Alamofire's order.
    func validate(forHost host: String, chain: Bool, hostName: Bool) throws {
        if chain { try performDefaultValidation(forHost: host) }
        if hostName { try performValidation(forHost: host) }
    }

    /// Checks that no certificate of the chain is revoked.
    public func checkRevocation(options: RevocationTrustEvaluator.Options) throws {
        try validator.checkRevocation(of: self, options: options)
    }

    /// Whether one of `pinned` is in the server's chain.
    public func chainIncludes(anyOf pinned: [TLSCertificate]) -> Bool {
        validator.chain(of: self, includesAnyOf: pinned)
    }

    /// Whether a certificate of the server's chain has one of `pinned` keys.
    public func chainIncludes(anyOf pinned: [TLSPublicKey]) -> Bool {
        validator.chain(of: self, includesAnyOf: pinned)
    }
}

/// A transport's checks behind a ``ServerTrust``. Each throws
/// ``HTTPError/serverTrustEvaluationFailed(reason:)`` with the reason
/// Alamofire gives (``HTTPError/ServerTrustFailureReason/defaultEvaluationFailed(output:)``,
/// ``HTTPError/ServerTrustFailureReason/hostValidationFailed(output:)``,
/// ``HTTPError/ServerTrustFailureReason/revocationCheckFailed(output:options:)``);
/// a check the transport cannot make fails, it never passes.
public protocol ServerTrustValidator: Sendable {
    /// The chain leads to a trusted anchor and is within its dates.
    func validateChain(of trust: ServerTrust, forHost host: String) throws
    /// The leaf is valid for `host`.
    func validateHost(_ host: String, of trust: ServerTrust) throws
    /// No certificate of the chain is revoked.
    func checkRevocation(of trust: ServerTrust, options: RevocationTrustEvaluator.Options) throws
    /// Whether one of `pinned` is in the chain. Default: among ``ServerTrust/certificates``.
    func chain(of trust: ServerTrust, includesAnyOf pinned: [TLSCertificate]) -> Bool
    /// Whether a certificate of the chain has one of `pinned` keys. Default:
    /// among the keys of ``ServerTrust/certificates``.
    func chain(of trust: ServerTrust, includesAnyOf pinned: [TLSPublicKey]) -> Bool
}

extension ServerTrustValidator {
    public func chain(of trust: ServerTrust, includesAnyOf pinned: [TLSCertificate]) -> Bool {
        !Set(trust.certificates).isDisjoint(with: pinned)
    }

    public func chain(of trust: ServerTrust, includesAnyOf pinned: [TLSPublicKey]) -> Bool {
        !Set(trust.publicKeys).isDisjoint(with: pinned)
    }
}

/// What a TLS handshake must verify before an evaluator sees the server.
///
/// A transport that verifies during the handshake (AsyncHTTPClient) needs
/// to know in advance; one that evaluates afterwards (URLSession on Apple
/// platforms) applies the anchors before evaluating.
public struct ServerTrustRequirements: Sendable, Hashable {
    /// Verify that the chain leads to a trusted anchor and is within its dates.
    public var validatesChain: Bool
    /// The only anchors to trust (Alamofire's `setAnchorCertificates`);
    /// `nil`: the transport's own trust roots.
    public var anchorCertificates: [TLSCertificate]?

    /// Creates requirements.
    public init(validatesChain: Bool, anchorCertificates: [TLSCertificate]? = nil) {
        self.validatesChain = validatesChain
        self.anchorCertificates = anchorCertificates
    }

    /// Verify the chain against the transport's trust roots.
    public static let `default` = ServerTrustRequirements(validatesChain: true)
    /// Verify nothing (the evaluator judges the certificates alone).
    public static let none = ServerTrustRequirements(validatesChain: false)

    /// Both requirements at once: the chain is verified if either asks,
    /// against the anchors either names (all of them when both do).
    public func combined(with other: ServerTrustRequirements) -> ServerTrustRequirements {
        let anchors: [TLSCertificate]? =
            switch (anchorCertificates, other.anchorCertificates) {
            case (nil, nil): nil
            case (let some?, nil), (nil, let some?): some
            case (let mine?, let theirs?): mine + theirs.filter { !mine.contains($0) }
            }
        return ServerTrustRequirements(validatesChain: validatesChain || other.validatesChain, anchorCertificates: anchors)
    }
}
