import Foundation

/// Which hosts a ``Session`` evaluates, and with which evaluator.
///
/// ```swift
/// let manager = ServerTrustManager(evaluators: [
///     "api.example.com": PinnedCertificatesTrustEvaluator(certificates: pinned),
///     "internal.example": DefaultTrustEvaluator(),
/// ])
/// let session = Session(transport: AsyncHTTPClientTransport(), serverTrustManager: manager)
/// ```
///
/// Hosts are matched without regard to case or a trailing dot
/// (`API.Example.com.` is `api.example.com`). Override
/// ``serverTrustEvaluator(forHost:)`` for other rules, wildcards for example.
///
/// Sendable: it holds only constants; a subclass must hold only constants too.
open class ServerTrustManager: @unchecked Sendable {
    /// Whether a host without an evaluator is refused (`true`) or connected
    /// to with the transport's own default checks (`false`).
    public let allHostsMustBeEvaluated: Bool
    /// The evaluators, by host (as given).
    public let evaluators: [String: any ServerTrustEvaluating]
    /// The same, by normalized host.
    private let normalizedEvaluators: [String: any ServerTrustEvaluating]

    /// - Parameters:
    ///   - allHostsMustBeEvaluated: Refuse hosts without an evaluator. Default `true`.
    ///   - evaluators: The evaluator of each host.
    public init(allHostsMustBeEvaluated: Bool = true, evaluators: [String: any ServerTrustEvaluating]) {
        self.allHostsMustBeEvaluated = allHostsMustBeEvaluated
        self.evaluators = evaluators
        // Keys differing only in spelling: the first in sorted order wins, every run.
        normalizedEvaluators = Dictionary(
            evaluators.sorted { $0.key < $1.key }.map { (Self.normalized($0.key), $0.value) }
        ) { first, _ in first }
    }

    /// The evaluator for `host`: `nil` when the host is not evaluated.
    ///
    /// - Throws: ``HTTPError/ServerTrustFailureReason/noRequiredEvaluator(host:)``
    ///   when ``allHostsMustBeEvaluated`` and the host has no evaluator.
    open func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
        guard let evaluator = normalizedEvaluators[Self.normalized(host)] else {
            if allHostsMustBeEvaluated {
                throw HTTPError.serverTrustEvaluationFailed(reason: .noRequiredEvaluator(host: host))
            }
            return nil
        }
        return evaluator
    }

    /// `host` in lower case, without a trailing dot or IPv6 brackets, and
    /// in its ASCII form (`bücher.example` is `xn--bcher-kva.example`, as
    /// `URL` spells a request's host).
    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if !host.allSatisfy(\.isASCII), let ascii = URL(string: "https://\(host)/")?.host { host = ascii.lowercased() }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}
