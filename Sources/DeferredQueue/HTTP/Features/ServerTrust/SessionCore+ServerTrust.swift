import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionCore {
    /// The evaluator for an attempt sending `request`: `nil` for a plain
    /// `http` URL or a host the manager does not evaluate.
    ///
    /// Thrown errors stop the request before anything is sent: the
    /// manager's (``HTTPError/ServerTrustFailureReason/noRequiredEvaluator(host:)``),
    /// and ``HTTPError/ServerTrustFailureReason/transportCannotEvaluate(host:transport:)``
    /// when the transport cannot apply the evaluator.
    func serverTrustEvaluator(for request: URLRequest) throws(HTTPError) -> (any ServerTrustEvaluating)? {
        guard let serverTrustManager, let url = request.url, url.scheme?.lowercased() == "https",
              let host = url.host, !host.isEmpty
        else { return nil }
        let evaluator: (any ServerTrustEvaluating)?
        do {
            evaluator = try serverTrustManager.serverTrustEvaluator(forHost: host)
        } catch {
            throw error as? HTTPError ?? .serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: error))
        }
        guard let evaluator else { return nil }
        guard transport.supportsServerTrustEvaluation else {
            throw .serverTrustEvaluationFailed(reason: .transportCannotEvaluate(
                host: host, transport: "\(type(of: transport as Any))"
            ))
        }
        return evaluator
    }
}
