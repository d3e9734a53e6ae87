/// Judges a server's TLS credentials for a host: Alamofire's protocol, with
/// a ``ServerTrust`` in place of `SecTrust`.
///
/// Throw ``HTTPError/serverTrustEvaluationFailed(reason:)`` to refuse the
/// server; any other error is reported as
/// ``HTTPError/ServerTrustFailureReason/customEvaluationFailed(error:)``.
/// The request fails before any of its bytes is sent.
public protocol ServerTrustEvaluating: Sendable {
    /// What the TLS handshake must verify before ``evaluate(_:forHost:)``
    /// runs (on AsyncHTTPClient the chain is verified during the handshake).
    /// Default: ``ServerTrustRequirements/default``.
    var handshakeRequirements: ServerTrustRequirements { get }

    /// Throws when `trust` must not be trusted for `host`.
    func evaluate(_ trust: ServerTrust, forHost host: String) throws
}

extension ServerTrustEvaluating {
    public var handshakeRequirements: ServerTrustRequirements { .default }
}

extension Array where Element == any ServerTrustEvaluating {
    /// Runs every evaluator in order; the first to throw decides.
    public func evaluate(_ trust: ServerTrust, forHost host: String) throws {
        for evaluator in self {
            try evaluator.evaluate(trust, forHost: host)
        }
    }

    /// The requirements of every evaluator at once.
    var handshakeRequirements: ServerTrustRequirements {
        guard let first else { return .none }
        return dropFirst().reduce(first.handshakeRequirements) { $0.combined(with: $1.handshakeRequirements) }
    }
}

/// The system's evaluation: the chain leads to a trusted root and is within
/// its dates, and (with `validateHost`) the leaf is valid for the host.
public final class DefaultTrustEvaluator: ServerTrustEvaluating {
    private let validateHost: Bool

    /// - Parameter validateHost: Check the leaf against the host. Default `true`.
    public init(validateHost: Bool = true) {
        self.validateHost = validateHost
    }

    public func evaluate(_ trust: ServerTrust, forHost host: String) throws {
        if validateHost {
            try trust.performValidation(forHost: host)
        }
        try trust.performDefaultValidation(forHost: host)
    }
}

/// Accepts any server. **For development only**: a request to a host with
/// this evaluator goes to whoever answers, attacker included.
public final class DisabledTrustEvaluator: ServerTrustEvaluating {
    public init() {}

    public var handshakeRequirements: ServerTrustRequirements { .none }

    public func evaluate(_ trust: ServerTrust, forHost host: String) throws {}
}

/// Runs several evaluators; each must accept the server.
///
/// On a transport that verifies during the handshake, the handshake checks
/// the chain once against every anchor the evaluators name (see
/// ``ServerTrustRequirements/combined(with:)``).
public final class CompositeTrustEvaluator: ServerTrustEvaluating {
    private let evaluators: [any ServerTrustEvaluating]

    public init(evaluators: [any ServerTrustEvaluating]) {
        self.evaluators = evaluators
    }

    public var handshakeRequirements: ServerTrustRequirements { evaluators.handshakeRequirements }

    public func evaluate(_ trust: ServerTrust, forHost host: String) throws {
        try evaluators.evaluate(trust, forHost: host)
    }
}

extension ServerTrustEvaluating where Self == CompositeTrustEvaluator {
    /// A ``CompositeTrustEvaluator``.
    public static func composite(evaluators: [any ServerTrustEvaluating]) -> CompositeTrustEvaluator {
        CompositeTrustEvaluator(evaluators: evaluators)
    }
}
