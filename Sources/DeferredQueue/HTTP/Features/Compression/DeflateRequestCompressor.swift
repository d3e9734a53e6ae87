import CDeferredQueueZlib
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Compresses every request body with `deflate` (RFC 9110's zlib format,
/// RFC 1950) and sets `Content-Encoding: deflate`, as Alamofire's.
///
/// Only a request's own `httpBody` is compressed (`request(_:method:body:)`,
/// parameters encoded into the body): an upload's data, file or form is
/// set after the adapters and goes as it is, as in Alamofire. Only for
/// servers known to accept compressed request bodies: most do not.
///
/// ```swift
/// import DeferredQueue
///
/// let session = Session(interceptor: .deflateCompressor)
/// ```
public struct DeflateRequestCompressor: RequestInterceptor {
    /// What to do with a request that already has a `Content-Encoding`.
    public enum DuplicateHeaderBehavior: Sendable {
        /// Fail the request with ``DuplicateHeaderError``.
        case error
        /// Compress anyway, replacing the field.
        case replace
        /// Send the request as it is.
        case skip
    }

    /// The request already had a `Content-Encoding` (with ``DuplicateHeaderBehavior/error``).
    public struct DuplicateHeaderError: Error, Sendable {}

    /// The body could not be compressed (zlib's status).
    public struct CompressionError: Error, Sendable {
        /// zlib's return code.
        public let status: Int32
    }

    /// What to do with a request that already has a `Content-Encoding`.
    public let duplicateHeaderBehavior: DuplicateHeaderBehavior
    /// Whether to compress a given body (by default, every one).
    public let shouldCompressBodyData: @Sendable (_ bodyData: Data) -> Bool

    /// Creates a compressor.
    ///
    /// - Parameters:
    ///   - duplicateHeaderBehavior: What to do with a request that already has a `Content-Encoding` (default: fail).
    ///   - shouldCompressBodyData: Whether to compress a given body (default: always).
    public init(
        duplicateHeaderBehavior: DuplicateHeaderBehavior = .error,
        shouldCompressBodyData: @escaping @Sendable (_ bodyData: Data) -> Bool = { _ in true }
    ) {
        self.duplicateHeaderBehavior = duplicateHeaderBehavior
        self.shouldCompressBodyData = shouldCompressBodyData
    }

    public func adapt(
        _ urlRequest: URLRequest, for session: Session,
        completion: @escaping @Sendable (_ result: Result<URLRequest, any Error>) -> Void
    ) {
        completion(Result { try compressed(urlRequest) })
    }

    public func adapt(_ urlRequest: URLRequest, for session: Session) async throws -> URLRequest {
        try compressed(urlRequest)
    }

    public func retry(
        _ request: Request, for session: Session, dueTo error: any Error,
        completion: @escaping @Sendable (RetryResult) -> Void
    ) {
        completion(.doNotRetry)
    }

    /// `urlRequest` with its body compressed, or as it is when there is nothing to do.
    func compressed(_ urlRequest: URLRequest) throws -> URLRequest {
        guard let body = urlRequest.httpBody, shouldCompressBodyData(body) else { return urlRequest }
        if urlRequest.value(forHTTPHeaderField: "Content-Encoding") != nil {
            switch duplicateHeaderBehavior {
            case .error: throw DuplicateHeaderError()
            case .replace: break
            case .skip: return urlRequest
            }
        }
        var request = urlRequest
        request.httpBody = try Self.deflate(body)
        request.setValue("deflate", forHTTPHeaderField: "Content-Encoding")
        return request
    }

    /// `data` in zlib's format: a header, the deflated bytes, an Adler-32.
    static func deflate(_ data: Data) throws -> Data {
        let bound = Int(compressBound(uLong(data.count)))
        var output = Data(count: bound)
        var written = uLongf(bound)
        let status = output.withUnsafeMutableBytes { out in
            data.withUnsafeBytes { input in
                compress2(
                    out.baseAddress?.assumingMemoryBound(to: Bytef.self), &written,
                    input.baseAddress?.assumingMemoryBound(to: Bytef.self), uLong(data.count), Z_DEFAULT_COMPRESSION
                )
            }
        }
        guard status == Z_OK else { throw CompressionError(status: status) }
        output.count = Int(written)
        return output
    }
}

extension RequestInterceptor where Self == DeflateRequestCompressor {
    /// A ``DeflateRequestCompressor`` with its defaults.
    public static var deflateCompressor: DeflateRequestCompressor { DeflateRequestCompressor() }

    /// A ``DeflateRequestCompressor``.
    ///
    /// - Parameters:
    ///   - duplicateHeaderBehavior: What to do with a request that already has a `Content-Encoding`.
    ///   - shouldCompressBodyData: Whether to compress a given body.
    /// - Returns: The compressor.
    public static func deflateCompressor(
        duplicateHeaderBehavior: DeflateRequestCompressor.DuplicateHeaderBehavior = .error,
        shouldCompressBodyData: @escaping @Sendable (_ bodyData: Data) -> Bool = { _ in true }
    ) -> DeflateRequestCompressor {
        DeflateRequestCompressor(duplicateHeaderBehavior: duplicateHeaderBehavior, shouldCompressBodyData: shouldCompressBodyData)
    }
}
