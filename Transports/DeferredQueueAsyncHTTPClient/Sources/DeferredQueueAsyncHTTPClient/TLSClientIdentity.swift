import DeferredQueue
import Foundation
import NIOSSL

/// A client certificate chain and its private key, for servers that
/// require mutual TLS, checked when loaded (a missing or broken file is an
/// error here, not a failed handshake later).
///
/// ```swift
/// import DeferredQueue
/// import DeferredQueueAsyncHTTPClient
///
/// func mutualTLSSession() throws -> Session {
///     let identity = try TLSClientIdentity(certificateChainFile: "client.pem", privateKeyFile: "client-key.pem")
///     return Session(transport: AsyncHTTPClientTransport(clientIdentity: identity))
/// }
/// ```
public struct TLSClientIdentity: Sendable {
    /// The client's certificate first, then any intermediates.
    public let certificateChain: [NIOSSLCertificate]
    /// The key of the first certificate.
    public let privateKey: NIOSSLPrivateKey

    /// An identity from certificates and a key already loaded.
    public init(certificateChain: [NIOSSLCertificate], privateKey: NIOSSLPrivateKey) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
    }

    /// An identity from PEM files: the certificate chain (client certificate
    /// first) and its unencrypted private key. They may be the same file.
    ///
    /// - Throws: ``TLSCertificateError`` naming the file that is missing or
    ///   holds no certificate or key.
    public init(certificateChainFile: String, privateKeyFile: String) throws(TLSCertificateError) {
        let chainText = try Self.text(of: certificateChainFile)
        let keyText = try Self.text(of: privateKeyFile)
        do {
            certificateChain = try NIOSSLCertificate.fromPEMBytes(Array(chainText.utf8))
        } catch {
            throw .notACertificate(source: certificateChainFile)
        }
        guard !certificateChain.isEmpty else { throw .notACertificate(source: certificateChainFile) }
        do {
            privateKey = try NIOSSLPrivateKey(bytes: Array(keyText.utf8), format: .pem)
        } catch {
            throw .notAPrivateKey(source: privateKeyFile)
        }
    }

    /// Makes `configuration` present this identity.
    public func apply(to configuration: inout TLSConfiguration) {
        configuration.certificateChain = certificateChain.map { .certificate($0) }
        configuration.privateKey = .privateKey(privateKey)
    }

    private static func text(of path: String) throws(TLSCertificateError) -> String {
        let url = URL(fileURLWithPath: path)
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw .unreadable(file: url, reason: "\(error.localizedDescription)")
        }
    }
}
