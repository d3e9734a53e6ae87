import AsyncHTTPClient
import DeferredQueue
import NIOCore
import Tracing

/// Which client an ``AsyncHTTPClientTransport`` runs on, and what it decodes.
///
/// AsyncHTTPClient keeps a client's configuration internal, and applies its
/// redirect policy to every request (there is no per-request switch). The
/// configuration is therefore read by reflection; when that fails (a future
/// AsyncHTTPClient could store it differently) the client is used as it is,
/// as documented on the transport, and assumed not to decompress.
///
/// A client the transport creates never decompresses: NIO's decompressor
/// inflates a whole read into one buffer (hundreds of MiB for a compression
/// bomb), so the transport decodes bodies itself with the library's
/// ``ContentDecoder``, a bounded step at a time.
struct ClientSetup {
    let client: HTTPClient
    let ownsClient: Bool
    /// The client decodes `gzip` and `deflate` itself (a client passed in, configured so).
    let decompresses: Bool
    /// The transport decodes bodies with a ``ContentDecoder`` (its own clients).
    let transportDecodes: Bool

    init(_ candidate: HTTPClient) {
        if candidate === HTTPClient.shared {
            client = HTTPClient(
                eventLoopGroup: candidate.eventLoopGroup,
                configuration: Self.transportConfiguration(from: .singletonConfiguration)
            )
            (ownsClient, decompresses, transportDecodes) = (true, false, true)
            return
        }
        guard let configuration = Self.configuration(of: candidate) else {
            (client, ownsClient, decompresses, transportDecodes) = (candidate, false, false, false)
            return
        }
        guard Self.followsRedirects(configuration) else {
            (client, ownsClient, decompresses, transportDecodes) = (candidate, false, Self.decompresses(configuration), false)
            return
        }
        var own = Self.withoutNoOpTracer(configuration)
        own.redirectConfiguration = .disallow
        // Decoding asked for: the transport's bounded decoder does it.
        transportDecodes = Self.decompresses(own)
        own.decompression = .disabled
        client = HTTPClient(eventLoopGroup: candidate.eventLoopGroup, configuration: own)
        (ownsClient, decompresses) = (true, false)
    }

    /// The `Accept-Encoding` the session sends: what the client or the transport decodes.
    var acceptEncoding: String? { decompresses || transportDecodes ? ContentDecoder.acceptEncoding : nil }

    /// `base` as the transport needs it: no redirects, no read timeout (each
    /// request has its own idle timeout), no decompression (the transport
    /// decodes, bounded), a refused connection reported at once, and no
    /// tracer when the process bootstrapped none (AsyncHTTPClient otherwise
    /// builds every request's span attributes for the no-op tracer).
    static func transportConfiguration(from base: HTTPClient.Configuration) -> HTTPClient.Configuration {
        var configuration = withoutNoOpTracer(base)
        configuration.redirectConfiguration = .disallow
        configuration.timeout.read = nil
        configuration.decompression = .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// `configuration` without its tracer when that is the no-op one: a client
    /// then skips tracing altogether. A tracer the process bootstrapped stays.
    static func withoutNoOpTracer(_ configuration: HTTPClient.Configuration) -> HTTPClient.Configuration {
        guard configuration.tracing.tracer is NoOpTracer else { return configuration }
        var configuration = configuration
        configuration.tracing.tracer = nil
        return configuration
    }

    /// The client's configuration, read by reflection; `nil` if unreadable.
    static func configuration(of client: HTTPClient) -> HTTPClient.Configuration? {
        Mirror(reflecting: client).children.first { $0.label == "configuration" }?.value as? HTTPClient.Configuration
    }

    /// Whether `configuration` follows redirects (`true` when unreadable).
    static func followsRedirects(_ configuration: HTTPClient.Configuration) -> Bool {
        guard let mode = Mirror(reflecting: configuration.redirectConfiguration).children.first(where: { $0.label == "mode" })
        else { return true }
        // `.disallow` has no payload; `.follow(…)` has one.
        return !Mirror(reflecting: mode.value).children.isEmpty
    }

    static func decompresses(_ configuration: HTTPClient.Configuration) -> Bool {
        if case .enabled = configuration.decompression { return true }
        return false
    }
}
