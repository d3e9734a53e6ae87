extension HTTPError {
    /// Why a server's TLS credentials were refused (Alamofire's reasons, with
    /// ``ServerTrust`` in place of `SecTrust`).
    public enum ServerTrustFailureReason: Sendable, CustomStringConvertible {
        /// What a failed check saw.
        public struct Output: Sendable {
            /// The host evaluated.
            public let host: String
            /// The server's credentials.
            public let trust: ServerTrust
            /// What the check found, in words.
            public let detail: String

            /// Creates an output.
            public init(host: String, trust: ServerTrust, detail: String) {
                self.host = host
                self.trust = trust
                self.detail = detail
            }
        }

        /// The ``ServerTrustManager`` requires every host to be evaluated and
        /// has no evaluator for this one.
        case noRequiredEvaluator(host: String)
        /// A ``PinnedCertificatesTrustEvaluator`` has no certificate to pin.
        case noCertificatesFound
        /// A ``PublicKeysTrustEvaluator`` has no key to pin.
        case noPublicKeysFound
        /// The chain leads to no trusted anchor, or a certificate is outside its dates.
        case defaultEvaluationFailed(output: Output)
        /// The leaf is not valid for the host.
        case hostValidationFailed(output: Output)
        /// A certificate was revoked, or revocation could not be checked.
        case revocationCheckFailed(output: Output, options: RevocationTrustEvaluator.Options)
        /// No pinned certificate is in the server's chain.
        case certificatePinningFailed(
            host: String, trust: ServerTrust, pinnedCertificates: [TLSCertificate], serverCertificates: [TLSCertificate]
        )
        /// No certificate of the server's chain has a pinned key.
        case publicKeyPinningFailed(host: String, trust: ServerTrust, pinnedKeys: [TLSPublicKey], serverKeys: [TLSPublicKey])
        /// An evaluator threw an error of its own.
        case customEvaluationFailed(error: any Error)
        /// The session's transport cannot evaluate server trust (URLSession on
        /// Linux): the request is refused rather than sent unevaluated.
        case transportCannotEvaluate(host: String, transport: String)

        private static func count(_ number: Int, _ noun: String) -> String {
            "\(number) \(noun)\(number == 1 ? "" : "s")"
        }

        public var description: String {
            switch self {
            case .noRequiredEvaluator(let host):
                "the ServerTrustManager requires every host to be evaluated and has no evaluator for \(host)"
            case .noCertificatesFound:
                "no certificates were found or provided to pin"
            case .noPublicKeysFound:
                "no public keys were found or provided to pin"
            case .defaultEvaluationFailed(let output):
                "default evaluation failed for host \(output.host): \(output.detail)"
            case .hostValidationFailed(let output):
                "host validation failed for host \(output.host): \(output.detail)"
            case .revocationCheckFailed(let output, _):
                "revocation check failed for host \(output.host): \(output.detail)"
            case .certificatePinningFailed(let host, _, let pinned, let server):
                "certificate pinning failed for host \(host): no pinned certificate (of \(pinned.count)) "
                    + "is in the server's chain (\(Self.count(server.count, "certificate")) read)"
            case .publicKeyPinningFailed(let host, _, let pinned, let server):
                "public key pinning failed for host \(host): no pinned key (of \(pinned.count)) "
                    + "is in the server's chain (\(Self.count(server.count, "key")) read)"
            case .customEvaluationFailed(let error):
                "custom trust evaluation failed: \(error)"
            case .transportCannotEvaluate(let host, let transport):
                "\(host) must be evaluated, and \(transport) cannot evaluate server trust on this platform "
                    + "(libcurl offers no hook). Use AsyncHTTPClientTransport "
                    + "(package DeferredQueueAsyncHTTPClient) for pinning and private CAs on Linux"
            }
        }
    }
}
