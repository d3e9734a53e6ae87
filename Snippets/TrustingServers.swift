// The examples of the DocC article "Trusting servers", as one program.
// Run: swift run TrustingServers [pins-directory] [https-url]
// On Linux the default transport (URLSession) cannot evaluate server trust:
// the request is refused, and the error names AsyncHTTPClientTransport.
import DeferredQueue
import Foundation

let pinsDirectory = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? FileManager.default.currentDirectoryPath)
let target = CommandLine.arguments.dropFirst(2).first ?? "https://api.example.com/status"

// snippet.manager
/// Pins for the API, a private CA for internal hosts, the system's checks elsewhere.
func makeTrustManager(pins: URL, internalCA: [TLSCertificate]) throws -> ServerTrustManager {
    // Every .pem, .crt, .cer and .der file of the directory (an unreadable one is an error).
    let pinned = try TLSCertificate.certificates(inDirectory: pins)
    return ServerTrustManager(evaluators: [
        // Certificates: the chain must pass the system's checks and include a pin.
        "api.example.com": PinnedCertificatesTrustEvaluator(certificates: pinned),
        // Keys: survive renewals that keep the key.
        "cdn.example.com": PublicKeysTrustEvaluator(keys: pinned.publicKeys),
        // A private CA as the only anchor; dates and host names are still checked.
        "internal.example": PinnedCertificatesTrustEvaluator(certificates: internalCA, acceptSelfSignedCertificates: true),
    ])
}
// snippet.end

// snippet.wildcards
/// Alamofire's way to match more than exact host names: override the lookup.
/// `@unchecked Sendable`, as every `ServerTrustManager`: it adds no state.
final class WildcardTrustManager: ServerTrustManager, @unchecked Sendable {
    override func serverTrustEvaluator(forHost host: String) throws -> (any ServerTrustEvaluating)? {
        if let exact = try? super.serverTrustEvaluator(forHost: host) { return exact }
        // "a.example.com" → "*.example.com": one label, as certificates match.
        guard let dot = host.firstIndex(of: ".") else { return try super.serverTrustEvaluator(forHost: host) }
        return try super.serverTrustEvaluator(forHost: "*" + host[dot...])
    }
}

let wildcards = WildcardTrustManager(evaluators: ["*.example.com": DefaultTrustEvaluator()])
// snippet.end

// snippet.session
func fetchStatus(transport: any HTTPTransport, manager: ServerTrustManager) async {
    let session = Session(transport: transport, serverTrustManager: manager)
    do {
        let status = try await session.request(target).validate().serializingString().value
        print(status)
    } catch let error as HTTPError where error.isServerTrustEvaluationError {
        // Refused before anything was sent: the reason says which check failed.
        print("not trusted:", error)
    } catch {
        print(error)
    }
}
// snippet.end

do {
    let manager = try makeTrustManager(pins: pinsDirectory, internalCA: [])
    await fetchStatus(transport: URLSessionTransport(), manager: manager)
    _ = wildcards
} catch {
    print("cannot load the pins:", error)
}
