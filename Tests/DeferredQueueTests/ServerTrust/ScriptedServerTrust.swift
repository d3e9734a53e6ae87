import DeferredQueue
import Foundation
import Synchronization
import TestSupport

/// A ``ServerTrust`` whose checks answer as scripted and record what was
/// asked, so the evaluators' logic is judged without a handshake.
final class ScriptedValidator: ServerTrustValidator {
    private let recorded = Mutex<[String]>([])
    let chainPasses: Bool
    let hostPasses: Bool

    init(chainPasses: Bool = true, hostPasses: Bool = true) {
        self.chainPasses = chainPasses
        self.hostPasses = hostPasses
    }

    /// The checks asked for, in order.
    var calls: [String] { recorded.testLock(owner: self) { $0 } }

    private func record(_ call: String) { recorded.testLock(owner: self) { $0.append(call) } }

    func validateChain(of trust: ServerTrust, forHost host: String) throws {
        record("chain(\(host))")
        guard chainPasses else {
            throw HTTPError.serverTrustEvaluationFailed(reason: .defaultEvaluationFailed(output: .init(host: host, trust: trust, detail: "scripted")))
        }
    }

    func validateHost(_ host: String, of trust: ServerTrust) throws {
        record("host(\(host))")
        guard hostPasses else {
            throw HTTPError.serverTrustEvaluationFailed(reason: .hostValidationFailed(output: .init(host: host, trust: trust, detail: "scripted")))
        }
    }

    func checkRevocation(of trust: ServerTrust, options: RevocationTrustEvaluator.Options) throws {
        record("revocation(\(options.rawValue))")
    }

    /// A trust for `host` presenting `certificates` with this validator.
    func trust(host: String = "pinning.test", certificates: [TLSCertificate], handshake: ServerTrustRequirements = .default) -> ServerTrust {
        ServerTrust(host: host, certificates: certificates, handshake: handshake, validator: self)
    }
}
