// Server-trust evaluation on Apple platforms, as Alamofire does it: the
// challenge's SecTrust, judged by the attempt's evaluator. Linux has no
// Security framework and corelibs sends no server-trust challenge, so this
// file is empty there (and not exercised by the Linux CI).
#if canImport(Security) && !canImport(FoundationNetworking)
import Foundation
@preconcurrency import Security
import Synchronization

extension URLSessionAttemptDelegate {
    /// Runs `evaluator` on the challenge's trust: the connection goes on
    /// only if it accepts; otherwise the task stops and completes with its error.
    func evaluateServerTrust(
        _ challenge: URLAuthenticationChallenge, with evaluator: any ServerTrustEvaluating,
        _ completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let host = challenge.protectionSpace.host
        guard let secTrust = challenge.protectionSpace.serverTrust else {
            handle.refuseTrust(.serverTrustEvaluationFailed(reason: .customEvaluationFailed(
                error: URLError(.secureConnectionFailed)
            )))
            return completionHandler(.cancelAuthenticationChallenge, nil)
        }
        do {
            let requirements = evaluator.handshakeRequirements
            let validator = try SecTrustValidator(secTrust, anchors: requirements.anchorCertificates)
            let trust = ServerTrust(host: host, certificates: validator.certificates, handshake: requirements, validator: validator)
            try evaluator.evaluate(trust, forHost: host)
            completionHandler(.useCredential, URLCredential(trust: secTrust))
        } catch {
            handle.refuseTrust(error as? HTTPError ?? .serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: error)))
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }
}

/// A ``ServerTrust``'s checks on a `SecTrust`. Its one lock is `trust`
/// (evaluating a `SecTrust` changes it).
final class SecTrustValidator: ServerTrustValidator {
    private let trust: Mutex<SecTrust>
    let certificates: [TLSCertificate]

    /// Applies `anchors` (only those, as Alamofire's `setAnchorCertificates`) before any check.
    init(_ secTrust: SecTrust, anchors: [TLSCertificate]?) throws {
        if let anchors {
            let secCertificates = anchors.compactMap { SecCertificateCreateWithData(nil, Data($0.derBytes) as CFData) }
            guard SecTrustSetAnchorCertificates(secTrust, secCertificates as CFArray) == errSecSuccess,
                  SecTrustSetAnchorCertificatesOnly(secTrust, true) == errSecSuccess
            else { throw HTTPError.serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: URLError(.secureConnectionFailed))) }
        }
        let chain = (SecTrustCopyCertificateChain(secTrust) as? [SecCertificate]) ?? []
        certificates = chain.compactMap { try? TLSCertificate(derEncoded: [UInt8](SecCertificateCopyData($0) as Data)) }
        trust = Mutex(secTrust)
    }

    func validateChain(of trust: ServerTrust, forHost host: String) throws {
        if let detail = evaluate(applying: SecPolicyCreateSSL(true, nil)) {
            throw HTTPError.serverTrustEvaluationFailed(reason: .defaultEvaluationFailed(
                output: .init(host: host, trust: trust, detail: detail)
            ))
        }
    }

    func validateHost(_ host: String, of trust: ServerTrust) throws {
        if let detail = evaluate(applying: SecPolicyCreateSSL(true, host as CFString)) {
            throw HTTPError.serverTrustEvaluationFailed(reason: .hostValidationFailed(
                output: .init(host: host, trust: trust, detail: detail)
            ))
        }
    }

    func checkRevocation(of trust: ServerTrust, options: RevocationTrustEvaluator.Options) throws {
        let detail: String? =
            if let policy = SecPolicyCreateRevocation(CFOptionFlags(options.rawValue)) {
                evaluate(applying: policy)
            } else {
                "the revocation policy could not be created"
            }
        if let detail {
            throw HTTPError.serverTrustEvaluationFailed(reason: .revocationCheckFailed(
                output: .init(host: trust.host, trust: trust, detail: detail), options: options
            ))
        }
    }

    /// Evaluates the trust under `policy`: `nil` when it passes, otherwise why not.
    private func evaluate(applying policy: SecPolicy) -> String? {
        trust.withLock { trust in
            guard SecTrustSetPolicies(trust, policy) == errSecSuccess else { return "the policy could not be applied" }
            var error: CFError?
            return SecTrustEvaluateWithError(trust, &error) ? nil : (error.map { "\($0)" } ?? "not trusted")
        }
    }
}
#endif
