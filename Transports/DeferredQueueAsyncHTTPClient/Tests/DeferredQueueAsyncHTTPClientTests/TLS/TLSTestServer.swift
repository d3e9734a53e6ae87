import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// An HTTPS server on 127.0.0.1 (an ephemeral port) that presents a given
/// certificate chain and answers every request with `200 ok`, then closes.
final class TLSTestServer: Sendable {
    let port: Int
    private let channel: any Channel
    private let answers = Answers()
    private let contexts: Contexts

    /// How many requests reached the server through TLS (none may, when
    /// the client rejects the certificate).
    var requestsAnswered: Int { answers.count.withLock { $0 } }

    /// How many connections the server accepted (handshakes attempted).
    var connectionsAccepted: Int { answers.connections.withLock { $0 } }

    /// How many accepted connections are still open.
    var connectionsOpen: Int { answers.open.withLock { $0 } }

    /// Starts a server presenting `identity`'s certificate (followed by
    /// `chain`, e.g. the CA) with its key; with no identity, a server that
    /// does not speak TLS (it answers a ClientHello with plain HTTP). With
    /// `clientCertificatesFrom`, it requires a client certificate issued by that CA.
    /// - Parameter silentAfter: Accepts the connections after this many and never answers them (a stalled handshake).
    init(
        identity: TestCertificates.Identity?, chain: [NIOSSLCertificate] = [],
        clientCertificatesFrom clientCA: NIOSSLCertificate? = nil, silentAfter: Int? = nil
    ) async throws {
        let contexts = Contexts(clientCA: clientCA)
        if let identity { try contexts.present(identity, chain: chain) }
        self.contexts = contexts
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [answers] channel in
                let number = answers.connections.withLock { connections in
                    connections += 1
                    return connections
                }
                if let silentAfter, number > silentAfter { return channel.eventLoop.makeSucceededVoidFuture() }
                answers.open.withLock { $0 += 1 }
                channel.closeFuture.whenComplete { _ in answers.open.withLock { $0 -= 1 } }
                return channel.eventLoop.makeCompletedFuture {
                    if let context = contexts.current {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.addHandler(OKResponder(answers: answers))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Presents `identity` (and `chain`) on every later connection: a rotated certificate.
    func present(_ identity: TestCertificates.Identity, chain: [NIOSSLCertificate] = []) throws {
        try contexts.present(identity, chain: chain)
    }

    /// `https://127.0.0.1:port/path`.
    func url(_ path: String = "/tls") -> URL {
        URL(string: "https://127.0.0.1:\(port)\(path)")!
    }

    func stop() async {
        try? await channel.close()
    }
}

/// The TLS context new connections get; its one lock is `context`.
private final class Contexts: Sendable {
    private let context = Mutex<NIOSSLContext?>(nil)
    let clientCA: NIOSSLCertificate?

    init(clientCA: NIOSSLCertificate?) {
        self.clientCA = clientCA
    }

    var current: NIOSSLContext? { context.withLock { $0 } }

    func present(_ identity: TestCertificates.Identity, chain: [NIOSSLCertificate]) throws {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: ([identity.certificate] + chain).map { .certificate($0) },
            privateKey: .privateKey(identity.key)
        )
        if let clientCA {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([clientCA])
        }
        let new = try NIOSSLContext(configuration: configuration)
        context.withLock { $0 = new }
    }
}

/// The count of requests answered; its one lock is `count`.
private final class Answers: Sendable {
    let count = Mutex(0)
    let connections = Mutex(0)
    let open = Mutex(0)
}

/// Answers the first bytes of a request with a complete `200` response.
private final class OKResponder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answers: Answers

    init(answers: Answers) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        answers.count.withLock { $0 += 1 }
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response))).whenComplete { _ in
            bound.value.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A client that rejects the certificate ends the handshake: expected.
        context.close(promise: nil)
    }
}
