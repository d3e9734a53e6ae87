/// The default evaluation, plus a check that no certificate of the chain
/// was revoked.
///
/// Only transports that can check revocation pass it: URLSession on Apple
/// platforms does. AsyncHTTPClient cannot (swift-nio-ssl offers no OCSP or
/// CRL checks), so there every request to a host with this evaluator fails
/// with ``HTTPError/ServerTrustFailureReason/revocationCheckFailed(output:options:)``
/// — it fails closed rather than connect unchecked.
public final class RevocationTrustEvaluator: ServerTrustEvaluating {
    /// How revocation is checked (Apple's `kSecRevocation…` flags).
    public struct Options: OptionSet, Sendable, Hashable {
        /// Certificate revocation lists.
        public static let crl = Options(rawValue: 1 << 1)
        /// No network access: only cached answers.
        public static let networkAccessDisabled = Options(rawValue: 1 << 4)
        /// The Online Certificate Status Protocol.
        public static let ocsp = Options(rawValue: 1 << 0)
        /// CRLs before OCSP.
        public static let preferCRL = Options(rawValue: 1 << 2)
        /// Fail unless a certificate's status is known to be good.
        public static let requirePositiveResponse = Options(rawValue: 1 << 3)
        /// Whichever method is available.
        public static let any = Options(rawValue: Options.ocsp.rawValue | Options.crl.rawValue)

        public let rawValue: UInt

        public init(rawValue: UInt) {
            self.rawValue = rawValue
        }
    }

    private let performDefaultValidation: Bool
    private let validateHost: Bool
    private let options: Options

    /// - Parameters:
    ///   - performDefaultValidation: Verify the chain first. Default `true`.
    ///   - validateHost: Check the leaf against the host. Default `true`.
    ///   - options: How to check revocation. Default ``Options/any``.
    public init(performDefaultValidation: Bool = true, validateHost: Bool = true, options: Options = .any) {
        self.performDefaultValidation = performDefaultValidation
        self.validateHost = validateHost
        self.options = options
    }

    public var handshakeRequirements: ServerTrustRequirements {
        ServerTrustRequirements(validatesChain: performDefaultValidation)
    }

    public func evaluate(_ trust: ServerTrust, forHost host: String) throws {
        try trust.validate(forHost: host, chain: performDefaultValidation, hostName: validateHost)
        try trust.checkRevocation(options: options)
    }
}

extension ServerTrustEvaluating where Self == RevocationTrustEvaluator {
    /// A ``RevocationTrustEvaluator`` with its defaults.
    public static var revocationChecking: RevocationTrustEvaluator { RevocationTrustEvaluator() }

    /// A ``RevocationTrustEvaluator``.
    public static func revocationChecking(
        performDefaultValidation: Bool = true, validateHost: Bool = true, options: RevocationTrustEvaluator.Options = .any
    ) -> RevocationTrustEvaluator {
        RevocationTrustEvaluator(performDefaultValidation: performDefaultValidation, validateHost: validateHost, options: options)
    }
}
