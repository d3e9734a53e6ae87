import AsyncHTTPClient
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOPosix
import NIOSSL

/// Maps AsyncHTTPClient's and SwiftNIO's errors to the `URLError` codes a
/// ``Session`` and its ``RetryPolicy`` understand (the codes URLSession uses
/// for the same failures).
enum ErrorMapping {
    /// `error` as a `URLError`, with `error` itself in `NSUnderlyingErrorKey`
    /// and `url` in `NSURLErrorFailingURLErrorKey`. A `URLError` is returned as
    /// it is, given `url` if it names none; a TLS failure is described as one (``TLSFailure``).
    static func urlError(for error: any Error, url: URL?) -> URLError {
        if let urlError = error as? URLError {
            guard urlError.failingURL == nil, let url else { return urlError }
            return URLError(urlError.code, userInfo: urlError.userInfo.merging([NSURLErrorFailingURLErrorKey: url]) { kept, _ in kept })
        }
        if let failure = TLSFailure(error) { return failure.urlError(underlying: error, url: url) }
        var userInfo: [String: Any] = [NSUnderlyingErrorKey: error]
        if let url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        if let reason = reason(for: error) { userInfo[NSLocalizedDescriptionKey] = reason }
        return URLError(code(for: error), userInfo: userInfo)
    }

    /// Words for a failure whose code alone would not say what went wrong.
    static func reason(for error: any Error) -> String? {
        guard let error = error as? HTTPParserError, error == .headerOverflow else { return nil }
        // SwiftNIO's HTTP/1 decoder: 80 KiB for the fields together, and for one field.
        return "the server's response head is larger than the 80 KiB AsyncHTTPClient accepts (all fields together, or one field)"
    }

    /// The `URLError` code for `error`; `.unknown` when nothing fits.
    static func code(for error: any Error) -> URLError.Code {
        switch error {
        case let error as HTTPClientError: return code(for: error)
        case let error as NIOConnectionError:
            // Every address failed: report the first one's reason.
            if error.dnsAError != nil, error.dnsAAAAError != nil, error.connectionErrors.isEmpty { return .cannotFindHost }
            return error.connectionErrors.first.map { code(for: $0.error) } ?? .cannotConnectToHost
        case let error as IOError: return code(forErrno: error.errnoCode)
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return .timedOut
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed, .inputClosed: return .networkConnectionLost
            default: return .unknown
            }
        case is SocketAddressError: return .cannotFindHost
        case let error as HTTPParserError:
            // The connection closed before the message ended (a head or a
            // body cut short); anything else is a malformed response.
            return error == .invalidEOFState ? .networkConnectionLost : .badServerResponse
        case is NIOHTTPDecompression.DecompressionError, is NIOHTTPDecompression.ExtraDecompressionError:
            return .cannotDecodeContentData
        case let error as NIOHTTP2Errors.StreamClosed:
            // SwiftNIO resets a stream whose response HTTP/2 forbids (a length
            // the data belies, `Transfer-Encoding`, a refused field) with
            // PROTOCOL_ERROR: a malformed response, as over HTTP/1.1. Any
            // other reset (the server's CANCEL, say) cut the exchange short.
            return error.errorCode == .protocolError ? .badServerResponse : .networkConnectionLost
        case is NIOHTTP2Errors.IOOnClosedConnection, is NIOHTTP2Errors.CreatedStreamAfterGoaway, is NIOHTTP2Errors.NoStreamIDAvailable:
            // The connection closed, or took no more streams, before the request went out.
            return .networkConnectionLost
        case is any NIOHTTP2Error:
            // Anything else HTTP/2's layer refuses is the peer breaking its rules.
            return .badServerResponse
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError: return TLSFailure(error)?.code ?? .secureConnectionFailed
        default: return .unknown
        }
    }

    static func code(for error: HTTPClientError) -> URLError.Code {
        switch error {
        case .cancelled: return .cancelled
        case .readTimeout, .writeTimeout, .connectTimeout, .deadlineExceeded, .tlsHandshakeTimeout,
             .socksHandshakeTimeout, .httpProxyHandshakeTimeout, .getConnectionFromPoolTimeout:
            return .timedOut
        case .remoteConnectionClosed, .uncleanShutdown: return .networkConnectionLost
        case .invalidURL, .emptyHost, .emptyScheme, .missingSocketPath: return .badURL
        case .identityCodingIncorrectlyPresent, .contentLengthMissing, .invalidProxyResponse:
            return .badServerResponse
        case .proxyAuthenticationRequired: return .userAuthenticationRequired
        default:
            // `unsupportedScheme` carries the scheme, so it cannot be matched as a constant.
            return "\(error)".contains("unsupportedScheme") ? .unsupportedURL : .unknown
        }
    }

    static func code(forErrno errno: Int32) -> URLError.Code {
        switch errno {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL: return .cannotConnectToHost
        case ECONNRESET, EPIPE, ECONNABORTED: return .networkConnectionLost
        case ETIMEDOUT: return .timedOut
        default: return .unknown
        }
    }
}
