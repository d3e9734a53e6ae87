import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// Reads the certificate chain a server presents, in a TLS handshake of its
/// own that rejects it: nothing is ever sent to the server.
///
/// swift-nio-ssl keeps a connection's presented chain to itself (it exposes
/// the leaf), and AsyncHTTPClient offers no verification callback. The
/// transport therefore opens this extra handshake only when it must: to say
/// why a chain failed (``CertificateDiagnosis``), and to look further up the
/// chain for a pin the leaf did not match (``ConnectionEvaluation``), where
/// only certificates whose signatures chain up from the real connection's
/// leaf are believed.
struct PresentedChainReader: Sendable {
    let tlsConfiguration: TLSConfiguration
    let group: any EventLoopGroup

    /// The longest a read takes by default, connection included.
    static let deadline = TimeAmount.seconds(10)

    /// The certificates the server at `target` presents for `host`, leaf
    /// first; empty when none could be had (no connection, no TLS, `deadline` passed).
    func read(host: String, connectingTo target: Target, within deadline: TimeAmount = Self.deadline) -> EventLoopFuture<[NIOSSLCertificate]> {
        let eventLoop = group.next()
        var configuration = tlsConfiguration
        // Verification is this reader's own callback, which rejects.
        configuration.certificateVerification = .fullVerification
        guard let context = try? NIOSSLContext(configuration: configuration),
            let bootstrap = ClientBootstrap(validatingGroup: eventLoop)
        else { return eventLoop.makeSucceededFuture([]) }
        let presented = PresentedChain()
        // As AsyncHTTPClient does: no server name indication for an address.
        let serverName = host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
        let connecting = bootstrap.connectTimeout(deadline).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let handler = try NIOSSLClientHandler(
                    context: context, serverHostname: serverName,
                    customVerificationCallback: { chain, verdict in
                        presented.set(chain)
                        verdict.succeed(.failed)
                    }
                )
                try channel.pipeline.syncOperations.addHandler(handler)
            }
        }
        let connected: EventLoopFuture<any Channel> =
            switch target {
            case .host(let name, let port): connecting.connect(host: name, port: port)
            case .address(let address): connecting.connect(to: address)
            }
        return connected.flatMap { channel in
            let timer = channel.eventLoop.scheduleTask(in: deadline) { channel.close(promise: nil) }
            return channel.closeFuture.always { _ in timer.cancel() }
        }.map { _ in presented.get() }.recover { _ in presented.get() }
    }

    /// Where to connect.
    enum Target {
        /// A name to resolve (or an address literal) and a port.
        case host(String, port: Int)
        /// The address a connection already reached.
        case address(SocketAddress)
    }
}

/// The chain a server presented (set on its event loop, read after the
/// connection closed); its one lock is `chain`.
private final class PresentedChain: Sendable {
    private let chain = Mutex<[NIOSSLCertificate]>([])
    func set(_ certificates: [NIOSSLCertificate]) { chain.withLock { $0 = certificates } }
    func get() -> [NIOSSLCertificate] { chain.withLock { $0 } }
}
