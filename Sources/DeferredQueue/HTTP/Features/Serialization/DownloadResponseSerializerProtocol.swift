import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a finished download into a value, reading its file as it sees fit
/// (Alamofire's protocol, with ``HTTPError`` in place of `any Error`).
///
/// Every ``ResponseSerializer`` is one: by default it reads the whole file
/// and serializes its bytes as it would a body in memory. Implement this
/// protocol alone for a serializer that only makes sense on a download
/// (one that streams the file, or, as ``URLResponseSerializer``, returns it).
public protocol DownloadResponseSerializerProtocol<SerializedObject>: Sendable {
    /// The value this serializer produces.
    associatedtype SerializedObject: Sendable

    /// Transforms the downloaded file into ``SerializedObject``.
    ///
    /// - Parameters:
    ///   - request: The request as last sent (after redirects), if one was built.
    ///   - response: The server's response, or `nil` when none arrived.
    ///   - fileURL: Where the downloaded file is (its destination), or `nil` when there is none.
    ///   - error: The transport failure or the failure a `validate(…)` recorded;
    ///     `nil` when the download finished and passed validation.
    /// - Returns: The serialized value.
    /// - Throws: `error` when it is given, otherwise whatever keeps the file
    ///   from becoming a ``SerializedObject``, preferably an ``HTTPError``.
    func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: HTTPError?) throws -> SerializedObject
}

extension DownloadResponseSerializerProtocol where Self: DataResponseSerializerProtocol {
    /// Reads the whole file, then serializes its bytes as ``serialize(request:response:data:error:)`` does.
    /// No file is ``HTTPError/SerializationFailureReason/inputFileNil``, as for
    /// ``URLResponseSerializer`` (a finished download always has one, an empty
    /// body's too); a file that cannot be read is
    /// ``HTTPError/SerializationFailureReason/inputFileReadFailed(at:)``.
    public func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: HTTPError?) throws -> SerializedObject {
        if let error { throw error }
        guard let fileURL else {
            throw HTTPError.responseSerializationFailed(reason: .inputFileNil)
        }
        let data: Data
        do {
            data = try Data(readingFile: fileURL)
        } catch {
            throw HTTPError.responseSerializationFailed(reason: .inputFileReadFailed(at: fileURL))
        }
        return try serialize(request: request, response: response, data: data, error: nil)
    }
}

extension DownloadResponseSerializerProtocol {
    /// The serializer's verdict on a finished download: a thrown ``HTTPError``
    /// as it is, any other error as a custom serialization failure.
    func result(forDownload raw: RawResponse) -> Result<SerializedObject, HTTPError> {
        do {
            return .success(try serializeDownload(request: raw.request, response: raw.response, fileURL: raw.fileURL, error: raw.error))
        } catch {
            return .failure(HTTPError(serializationStep: error))
        }
    }
}

/// Returns a download's file URL (Alamofire's `URLResponseSerializer`):
/// what ``DownloadRequest/responseURL(queue:completionHandler:)`` delivers.
public struct URLResponseSerializer: DownloadResponseSerializerProtocol {
    public init() {}

    public func serializeDownload(request: URLRequest?, response: HTTPURLResponse?, fileURL: URL?, error: HTTPError?) throws -> URL {
        if let error { throw error }
        guard let fileURL else {
            throw HTTPError.responseSerializationFailed(reason: .inputFileNil)
        }
        return fileURL
    }
}

extension DownloadResponseSerializerProtocol where Self == URLResponseSerializer {
    /// A ``URLResponseSerializer``.
    public static var url: URLResponseSerializer { URLResponseSerializer() }
}
