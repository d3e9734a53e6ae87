import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads `WWW-Authenticate` challenges (RFC 9110 §11.6.1).
///
/// The session answers `Basic` challenges itself, with the credential given
/// to ``Request/authenticate(username:password:persistence:)``, instead of letting the
/// transport do it: URLSession on Linux (swift-corelibs-foundation 6.3.1)
/// never completes a request answered `401` with `WWW-Authenticate`
/// (upstream issue #5456).
enum BasicChallenge {
    /// Whether one of the response's challenges uses the `Basic` scheme.
    static func isOffered(by response: ResponseHead) -> Bool {
        guard let header = response.value(forHTTPHeaderField: "WWW-Authenticate") else { return false }
        // Challenges and their parameters are both comma-separated; a
        // challenge starts with its scheme token, a parameter with `name=`.
        return header.split(separator: ",").contains { item in
            let item = item.trimmingCharacters(in: .whitespaces).lowercased()
            return item == "basic" || item.hasPrefix("basic ")
        }
    }
}
