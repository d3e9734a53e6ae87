import AsyncHTTPClient
import DeferredQueue
import NIOCore
import Tracing

/// Which client an ``AsyncHTTPClientTransport`` runs on, and who decodes.
///
/// AsyncHTTPClient keeps a client's configuration to itself and applies its
/// redirect policy to every request (there is no per-request switch), so
/// the transport never guesses at a client: it builds its own from a
/// configuration, overriding what the session must decide, or takes a
/// caller's client on the caller's word (see the transport's "The client").
///
/// A client the transport builds never decompresses: NIO's decompressor
/// inflates a whole read into one buffer (hundreds of MiB for a compression
/// bomb), so the transport decodes bodies itself with the library's
/// ``ContentDecoder``, a bounded step at a time.
struct ClientSetup {
    let client: HTTPClient
    let ownsClient: Bool
    /// The client decodes `gzip` and `deflate` itself (a caller's client, configured so).
    let decompresses: Bool
    /// The transport decodes bodies with a ``ContentDecoder`` (its own clients).
    let transportDecodes: Bool
    /// The client's configuration, when known: certificate failures are
    /// then explained (``CertificateDiagnosis``).
    let configuration: HTTPClient.Configuration?
    /// Whether the clients the transport builds may negotiate HTTP/2.
    let negotiatesHTTP2: Bool
    /// The caller's configuration, before the transport's overrides, when known.
    private let callerConfiguration: HTTPClient.Configuration?

    /// A client of the transport's own, built from `base` with the overrides
    /// of ``transportConfiguration(from:negotiatesHTTP2:)``.
    init(configuration base: HTTPClient.Configuration, negotiatesHTTP2: Bool, eventLoopGroup: any EventLoopGroup) {
        let configuration = Self.transportConfiguration(from: base, negotiatesHTTP2: negotiatesHTTP2)
        client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
        self.configuration = configuration
        callerConfiguration = base
        self.negotiatesHTTP2 = negotiatesHTTP2
        (ownsClient, decompresses, transportDecodes) = (true, false, true)
    }

    /// A caller's client, used as it is; `configuration` is what the caller
    /// says it was created with.
    init(client: HTTPClient, configuration: HTTPClient.Configuration?) {
        self.client = client
        self.configuration = configuration
        callerConfiguration = configuration
        negotiatesHTTP2 = false
        (ownsClient, transportDecodes) = (false, false)
        decompresses = configuration.map(Self.decompresses) ?? false
    }

    /// The configuration of the clients the transport makes for hosts whose
    /// server trust is evaluated: the caller's configuration (or the default
    /// one) with the transport's overrides, applied once, decompressing only
    /// if the client does (the attempts then do not decode).
    var evaluatedHostsConfiguration: HTTPClient.Configuration {
        var configuration = Self.transportConfiguration(
            from: callerConfiguration ?? HTTPClient.Configuration(), negotiatesHTTP2: negotiatesHTTP2
        )
        if decompresses, let base = callerConfiguration { configuration.decompression = base.decompression }
        return configuration
    }

    /// The `Accept-Encoding` the session sends: what the client or the transport decodes.
    var acceptEncoding: String? { decompresses || transportDecodes ? ContentDecoder.acceptEncoding : nil }

    /// `base` as the transport needs it: no redirects, no read timeout (each
    /// request has its own idle timeout), no decompression (the transport
    /// decodes, bounded), a refused connection reported at once, and no
    /// tracer when the process bootstrapped none (AsyncHTTPClient otherwise
    /// builds every request's span attributes for the no-op tracer), HTTP/1.1
    /// only unless `negotiatesHTTP2`, and an HTTP/2 connection closed when
    /// it breaks (``HTTP2ConnectionErrorClose``).
    static func transportConfiguration(from base: HTTPClient.Configuration, negotiatesHTTP2: Bool) -> HTTPClient.Configuration {
        var configuration = base
        if !negotiatesHTTP2 { configuration.httpVersion = .http1Only }
        configuration.http2ConnectionDebugInitializer = closingBrokenHTTP2Connections(then: base.http2ConnectionDebugInitializer)
        if configuration.tracing.tracer is NoOpTracer { configuration.tracing.tracer = nil }
        configuration.redirectConfiguration = .disallow
        configuration.timeout.read = nil
        configuration.decompression = .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// An HTTP/2 connection initializer that installs ``HTTP2ConnectionErrorClose``, then runs `next`.
    static func closingBrokenHTTP2Connections(
        then next: (@Sendable (any Channel) -> EventLoopFuture<Void>)?
    ) -> @Sendable (any Channel) -> EventLoopFuture<Void> {
        { channel in
            let installed = HTTP2ConnectionErrorClose.install(on: channel)
            guard let next else { return installed }
            return installed.flatMap { next(channel) }
        }
    }

    static func decompresses(_ configuration: HTTPClient.Configuration) -> Bool {
        if case .enabled = configuration.decompression { return true }
        return false
    }
}
