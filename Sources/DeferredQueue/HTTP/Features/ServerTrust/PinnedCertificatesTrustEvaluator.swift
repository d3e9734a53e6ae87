import Foundation

/// Trusts a server only if its chain includes one of the pinned certificates.
///
/// With `acceptSelfSignedCertificates`, the pinned certificates are the
/// only trusted anchors (Alamofire's `setAnchorCertificates`): pin a
/// self-signed leaf or a private CA's root. Otherwise the chain must also
/// pass the default validation against the system's roots.
///
/// On AsyncHTTPClient the chain is the leaf the connection presented and
/// the certificates above it whose signatures chain up from it (read in a
/// second handshake when the leaf alone does not match); a pinned root the
/// server does not send is found when it signed the top of that chain. With
/// `acceptSelfSignedCertificates` there, pin self-signed certificates (a
/// private root, a self-signed leaf): BoringSSL accepts no other anchor, so
/// a pinned intermediate as the only anchor fails closed.
public final class PinnedCertificatesTrustEvaluator: ServerTrustEvaluating {
    private let certificates: [TLSCertificate]
    private let acceptSelfSignedCertificates: Bool
    private let performDefaultValidation: Bool
    private let validateHost: Bool

    /// - Parameters:
    ///   - certificates: The pinned certificates. Default: those among the
    ///     main bundle's resources (``TLSCertificate/certificates(in:)``).
    ///   - acceptSelfSignedCertificates: Trust the pinned certificates as the
    ///     only anchors. Default `false`.
    ///   - performDefaultValidation: Verify the chain. Default `true`.
    ///   - validateHost: Check the leaf against the host. Default `true`.
    public init(
        certificates: [TLSCertificate] = TLSCertificate.certificates(in: .main),
        acceptSelfSignedCertificates: Bool = false,
        performDefaultValidation: Bool = true,
        validateHost: Bool = true
    ) {
        self.certificates = certificates
        self.acceptSelfSignedCertificates = acceptSelfSignedCertificates
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
    }

    public var handshakeRequirements: ServerTrustRequirements {
        // With nothing pinned, evaluate() says so (a handshake against no anchor could not).
        guard !certificates.isEmpty else { return .none }
        return ServerTrustRequirements(
            validatesChain: performDefaultValidation,
            anchorCertificates: acceptSelfSignedCertificates ? certificates : nil
        )
    }

    public func evaluate(_ trust: ServerTrust, forHost host: String) throws {
        guard !certificates.isEmpty else {
            throw HTTPError.serverTrustEvaluationFailed(reason: .noCertificatesFound)
        }
        try trust.validate(forHost: host, chain: performDefaultValidation, hostName: validateHost)
        guard trust.chainIncludes(anyOf: certificates) else {
            throw HTTPError.serverTrustEvaluationFailed(reason: .certificatePinningFailed(
                host: host, trust: trust, pinnedCertificates: certificates, serverCertificates: trust.certificates
            ))
        }
    }
}

extension ServerTrustEvaluating where Self == PinnedCertificatesTrustEvaluator {
    /// A ``PinnedCertificatesTrustEvaluator`` with its defaults.
    public static var pinnedCertificates: PinnedCertificatesTrustEvaluator { PinnedCertificatesTrustEvaluator() }

    /// A ``PinnedCertificatesTrustEvaluator``.
    public static func pinnedCertificates(
        certificates: [TLSCertificate] = TLSCertificate.certificates(in: .main),
        acceptSelfSignedCertificates: Bool = false,
        performDefaultValidation: Bool = true,
        validateHost: Bool = true
    ) -> PinnedCertificatesTrustEvaluator {
        PinnedCertificatesTrustEvaluator(
            certificates: certificates, acceptSelfSignedCertificates: acceptSelfSignedCertificates,
            performDefaultValidation: performDefaultValidation, validateHost: validateHost
        )
    }
}
