import AsyncHTTPClient
import DeferredQueue
import Dispatch
import NIOCore
import NIOSSL
import Synchronization

/// The clients that carry requests to hosts a session evaluates: one per
/// host and ``ServerTrustRequirements``, created on first use and shut down
/// with the transport.
///
/// AsyncHTTPClient offers no per-request hook into the TLS handshake, but a
/// client runs its connection initializer on every new connection after the
/// handshake and before the connection takes a request; a failure there
/// fails the request instead. So each evaluated host gets a client whose
/// TLS configuration makes BoringSSL verify what the evaluator requires (the
/// chain, against its anchors; host names are checked afterwards, so the
/// failure can say so), and whose initializer runs the evaluator on the
/// certificate the server presented on that very connection.
final class ServerTrustClients: Sendable {
    struct Key: Hashable {
        let host: String
        let requirements: ServerTrustRequirements
        /// Which evaluator judges the client's connections.
        let evaluator: EvaluatorIdentity

        init(host: String, evaluator: any ServerTrustEvaluating) {
            self.host = host.lowercased()
            requirements = evaluator.handshakeRequirements
            self.evaluator = EvaluatorIdentity(evaluator)
        }
    }

    /// When two evaluators may share a client: only when they judge alike.
    /// The client runs the evaluator it was made with on every connection,
    /// so sharing one between evaluators that differ would let the wrong
    /// one decide (a revoked pin still trusted).
    enum EvaluatorIdentity: Hashable {
        /// The library's evaluators: immutable, and every stored value (pins
        /// included) shows in their `Mirror`, so equal ones made anew by a
        /// manager share a client and new pins get a new one.
        case library(String)
        /// Any other class: this instance, whose state judges each connection.
        case object(ObjectIdentifier)
        /// A `Hashable` value, by its own equality.
        case value(AnyHashable)
        /// Any other value: nothing tells whether two judge alike (a closure
        /// shows in a `Mirror` only as a function, a custom mirror shows
        /// what it likes), so it shares with none.
        case unique(UInt64)

        private static let nextUnique = Atomic<UInt64>(0)

        /// Whether another attempt may find the client this one keys.
        var isShared: Bool {
            if case .unique = self { return false }
            return true
        }

        init(_ evaluator: any ServerTrustEvaluating) {
            if let fingerprint = Self.libraryFingerprint(evaluator) {
                self = .library(fingerprint)
            } else if type(of: evaluator) is AnyClass {
                // Kept alive by the client it keys, so never reused meanwhile.
                self = .object(ObjectIdentifier(evaluator as AnyObject))
            } else if let value = evaluator as? AnyHashable {
                self = .value(value)
            } else {
                self = .unique(Self.nextUnique.add(1, ordering: .relaxed).newValue)
            }
        }

        /// The type and stored values of one of the library's (final)
        /// evaluator classes, a composite of them included; `nil` for any other.
        private static func libraryFingerprint(_ evaluator: any ServerTrustEvaluating) -> String? {
            switch evaluator {
            case is DefaultTrustEvaluator, is DisabledTrustEvaluator, is PinnedCertificatesTrustEvaluator,
                 is PublicKeysTrustEvaluator, is RevocationTrustEvaluator:
                return fingerprint(evaluator, depth: 0)
            case let composite as CompositeTrustEvaluator:
                var members: [String] = []
                for child in Mirror(reflecting: composite).children {
                    guard let evaluators = child.value as? [any ServerTrustEvaluating] else { return nil }
                    for member in evaluators {
                        guard let fingerprint = libraryFingerprint(member) else { return nil }
                        members.append(fingerprint)
                    }
                }
                return "CompositeTrustEvaluator(\(members.joined(separator: ",")))"
            default:
                return nil
            }
        }

        private static func fingerprint(_ value: Any, depth: Int) -> String {
            // A certificate's or key's bytes: one string, not one per byte.
            if let bytes = value as? [UInt8] { return bytes.map { String($0, radix: 16) }.joined(separator: ".") }
            let mirror = Mirror(reflecting: value)
            guard depth < 8, !mirror.children.isEmpty else { return String(reflecting: value) }
            let fields = mirror.children.map { "\($0.label ?? "_")=\(fingerprint($0.value, depth: depth + 1))" }
            return "\(type(of: value))(\(fields.joined(separator: ",")))"
        }
    }

    /// The most clients kept by default; the least recently made one goes first.
    static let defaultCapacity = 64

    /// An evaluated host's client, and the diagnosis of its certificate
    /// failures, leased to the attempts that use it: a client evicted past
    /// the capacity shuts down once its last attempt ended, not under it.
    final class Entry: Sendable {
        let client: HTTPClient
        let diagnosis: CertificateDiagnosis?
        /// The attempts using the client, and whether it was evicted.
        private let use = Mutex<(attempts: Int, evicted: Bool)>((0, false))

        init(client: HTTPClient, diagnosis: CertificateDiagnosis?) {
            self.client = client
            self.diagnosis = diagnosis
        }

        /// One more attempt uses the client (under the clients' lock, so
        /// that no eviction comes between finding the entry and this).
        fileprivate func lease() {
            use.withLock { $0.attempts += 1 }
        }

        /// An attempt that leased the client ended.
        func release() {
            let idle = use.withLock { use -> Bool in
                use.attempts -= 1
                return use.evicted && use.attempts == 0
            }
            if idle { client.shutdown().whenComplete { _ in } }
        }

        /// Evicted, and no attempt uses the client any more: it is shut down.
        fileprivate var isDone: Bool {
            use.withLock { $0.evicted && $0.attempts == 0 }
        }

        /// Past the capacity: shuts down once no attempt uses the client.
        fileprivate func evict() {
            let idle = use.withLock { use -> Bool in
                use.evicted = true
                return use.attempts == 0
            }
            if idle { client.shutdown().whenComplete { _ in } }
        }
    }

    private let base: HTTPClient.Configuration
    private let group: any EventLoopGroup
    /// Where evaluators run: never on an event loop.
    private let queue: DispatchQueue
    /// The clients kept, oldest first in `order`; those evicted while
    /// attempts still used them in `draining`, for ``shutdown()``.
    private let clients = Mutex<(entries: [Key: Entry], order: [Key], draining: [Entry], isShutDown: Bool)>(([:], [], [], false))
    /// The most clients kept.
    private let capacity: Int

    /// - Parameters:
    ///   - base: The configuration of the transport's client, overrides applied.
    ///   - group: The event loops of the transport's client.
    ///   - queue: Where evaluators run.
    ///   - capacity: The most clients kept.
    init(base: HTTPClient.Configuration, group: any EventLoopGroup, queue: DispatchQueue, capacity: Int = defaultCapacity) {
        self.base = base
        self.group = group
        self.queue = queue
        self.capacity = max(1, capacity)
    }

    /// The client for requests to `host` judged by `evaluator`, leased:
    /// call ``Entry/release()`` once the attempt that uses it ended.
    ///
    /// - Throws: ``HTTPError/ServerTrustFailureReason/customEvaluationFailed(error:)``
    ///   when an anchor is not a certificate BoringSSL accepts, or the transport shut down.
    func entry(forHost host: String, evaluator: any ServerTrustEvaluating) throws(HTTPError) -> Entry {
        let key = Key(host: host, evaluator: evaluator)
        let found = clients.withLock { clients -> Entry? in
            let entry = clients.entries[key]
            entry?.lease()
            return entry
        }
        if let found { return found }
        let configuration = try makeConfiguration(key, evaluator: evaluator)
        var evicted: Entry?
        var oneUse: Entry?
        let entry = try clients.withLock { clients throws(HTTPError) -> Entry in
            guard !clients.isShutDown else {
                throw .serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: HTTPClientError.alreadyShutdown))
            }
            if let entry = clients.entries[key] {
                entry.lease()
                return entry
            }
            let entry = Entry(
                client: HTTPClient(eventLoopGroup: group, configuration: configuration),
                diagnosis: CertificateDiagnosis(configuration: configuration, group: group)
            )
            entry.lease()
            clients.draining.removeAll { $0.isDone }
            guard key.evaluator.isShared else {
                // No other attempt can find it: it goes when this one ended,
                // never in the way of the clients that are shared.
                clients.draining.append(entry)
                oneUse = entry
                return entry
            }
            clients.entries[key] = entry
            clients.order.append(key)
            if clients.order.count > capacity, let oldest = clients.entries.removeValue(forKey: clients.order.removeFirst()) {
                clients.draining.append(oldest)
                evicted = oldest
            }
            return entry
        }
        // Past the capacity (by default 64 different evaluators in use): the
        // oldest client goes once what it still runs has ended.
        evicted?.evict()
        oneUse?.evict()
        return entry
    }

    /// Shuts every client down, those evicted but still in use too (their
    /// requests fail); later requests are refused.
    func shutdown() {
        let entries = clients.withLock { clients in
            clients.isShutDown = true
            defer { (clients.entries, clients.order, clients.draining) = ([:], [], []) }
            return Array(clients.entries.values) + clients.draining.filter { !$0.isDone }
        }
        for entry in entries { entry.client.shutdown().whenComplete { _ in } }
    }

    private func makeConfiguration(_ key: Key, evaluator: any ServerTrustEvaluating) throws(HTTPError) -> HTTPClient.Configuration {
        var configuration = base
        var tls = configuration.tlsConfiguration ?? .makeClientConfiguration()
        if key.requirements.validatesChain {
            tls.certificateVerification = .noHostnameVerification
            if let anchors = key.requirements.anchorCertificates {
                do {
                    tls.trustRoots = .certificates(try anchors.map { try NIOSSLCertificate(bytes: $0.derBytes, format: .der) })
                } catch {
                    throw .serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: error))
                }
                tls.additionalTrustRoots = []
            }
        } else {
            tls.certificateVerification = .none
        }
        configuration.tlsConfiguration = tls
        // Not through a proxy: a second connection would not reach the same server.
        let reader = configuration.proxy == nil ? PresentedChainReader(tlsConfiguration: tls, group: group) : nil
        let evaluation = ConnectionEvaluation(
            host: key.host, requirements: key.requirements, evaluator: evaluator, queue: queue, reader: reader
        )
        configuration.http1_1ConnectionDebugInitializer = { evaluation.run(on: $0) }
        // After the transport's own (`base` is the transport's configuration).
        let ownInitializer = configuration.http2ConnectionDebugInitializer
        configuration.http2ConnectionDebugInitializer = { channel in
            guard let ownInitializer else { return evaluation.run(on: channel) }
            return ownInitializer(channel).flatMap { evaluation.run(on: channel) }
        }
        return configuration
    }
}

/// Runs an evaluator on the certificate a connection's server presented.
///
/// First on the leaf alone (what swift-nio-ssl exposes). When that fails
/// only for want of a pin, and the connection is direct, the rest of the
/// chain is read in a second handshake (``PresentedChainReader``) and the
/// evaluator runs again on the leaf with the certificates above it whose
/// signatures chain up from it: a second handshake can add no certificate
/// that did not issue the real connection's leaf.
struct ConnectionEvaluation: Sendable {
    let host: String
    let requirements: ServerTrustRequirements
    let evaluator: any ServerTrustEvaluating
    let queue: DispatchQueue
    let reader: PresentedChainReader?
    /// Chains read before, by leaf: one extra handshake per certificate, not per connection.
    let chains = PresentedChains()

    /// Succeeds when the evaluator accepts the connection's server; fails
    /// with the evaluator's ``HTTPError`` otherwise, closing the connection unused.
    func run(on channel: any Channel) -> EventLoopFuture<Void> {
        // AsyncHTTPClient drops a connection whose initializer failed without closing it.
        evaluate(channel).flatMapErrorThrowing { error in
            channel.close(promise: nil)
            throw error
        }
    }

    private func evaluate(_ channel: any Channel) -> EventLoopFuture<Void> {
        channel.pipeline.handler(type: NIOSSLHandler.self).flatMap { handler in
            let promise = channel.eventLoop.makePromise(of: Void.self)
            let leaf = handler.peerCertificate.flatMap { try? $0.toDERBytes() }.flatMap(ChainCertificate.init(der:))
            let address = channel.remoteAddress
            queue.async {
                do {
                    try evaluate(leaf: leaf)
                    promise.succeed()
                } catch let error where Self.isPinMismatch(error) {
                    guard let leaf else { return promise.fail(error) }
                    // The chain read for this leaf before: its signatures still hold.
                    if let presented = chains.chain(above: leaf), (try? evaluate(leaf: leaf, presented: presented)) != nil {
                        return promise.succeed()
                    }
                    guard let address, let reader else { return promise.fail(error) }
                    reader.read(host: host, connectingTo: .address(address)).whenComplete { result in
                        let presented = ((try? result.get()) ?? []).compactMap { try? $0.toDERBytes() }.compactMap(ChainCertificate.init(der:))
                        chains.remember(presented, above: leaf)
                        queue.async {
                            do {
                                try evaluate(leaf: leaf, presented: presented)
                                promise.succeed()
                            } catch {
                                promise.fail(error)
                            }
                        }
                    }
                } catch {
                    promise.fail(error)
                }
            }
            return promise.futureResult
        }
    }

    /// Evaluates a connection whose server presented `leaf`, with the
    /// certificates `presented` in another handshake.
    func evaluate(leaf: ChainCertificate?, presented: [ChainCertificate] = []) throws(HTTPError) {
        guard let leaf else {
            throw .serverTrustEvaluationFailed(reason: .customEvaluationFailed(
                error: TLSCertificateError.notACertificate(source: "the certificate \(host) presented")
            ))
        }
        let validator = LeafTrustValidator(leaf: leaf, presented: presented)
        let trust = ServerTrust(host: host, certificates: validator.certificates, handshake: requirements, validator: validator)
        do {
            try evaluator.evaluate(trust, forHost: host)
        } catch {
            throw error as? HTTPError ?? .serverTrustEvaluationFailed(reason: .customEvaluationFailed(error: error))
        }
    }

    static func isPinMismatch(_ error: any Error) -> Bool {
        switch error as? HTTPError {
        case .serverTrustEvaluationFailed(.certificatePinningFailed), .serverTrustEvaluationFailed(.publicKeyPinningFailed): true
        default: false
        }
    }
}

/// The chains a ``PresentedChainReader`` read, by the leaf they were read
/// for (the last 16 leaves); its one lock is `chains`.
final class PresentedChains: Sendable {
    private let chains = Mutex<[(leaf: [UInt8], chain: [ChainCertificate])]>([])

    func chain(above leaf: ChainCertificate) -> [ChainCertificate]? {
        chains.withLock { chains in chains.first { $0.leaf == leaf.der }?.chain }
    }

    func remember(_ chain: [ChainCertificate], above leaf: ChainCertificate) {
        chains.withLock { chains in
            chains.removeAll { $0.leaf == leaf.der }
            chains.append((leaf.der, chain))
            if chains.count > 16 { chains.removeFirst() }
        }
    }
}
