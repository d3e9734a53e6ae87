import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request that sends a body — data, a file, or a multipart form — with
/// everything a ``DataRequest`` offers; ``Request/uploadProgress(queue:closure:)``
/// follows the body out.
///
/// ```swift
/// upload(multipartFormData: { form in
///     form.append(Data("Ada".utf8), withName: "name")
///     form.append(photoURL, withName: "photo")
/// }, to: "https://example.com/profile")
/// .uploadProgress { progress in print(progress.fraction ?? 0) }
/// .responseDecodable(of: Profile.self) { response in … }
/// ```
///
/// A file is streamed from disk as it is sent, never loaded whole; so is an
/// `InputStream`, once copied to a temporary file as the request starts. A form
/// larger than ``MultipartFormData/encodingMemoryThreshold`` is encoded to a
/// temporary file when the request starts (off the caller's thread) and
/// streamed from there; that file is removed by the upload's `fileManager`
/// before the handlers run, however the request ends. A file that does not
/// exist, or a form part that cannot be read, fails every handler with a
/// clear error and sends nothing.
// `@unchecked Sendable` as `Request`: constants only here; what changes is in
// `Request.mutableState`, behind its one lock.
public final class UploadRequest: DataRequest, @unchecked Sendable {
    /// What an upload sends, as given.
    enum Source: Sendable {
        /// Bytes, set as each attempt's body: kept apart from the
        /// `URLRequest`, so an adapter that builds a request anew cannot drop them.
        case data(Data)
        /// A caller's file, streamed.
        case file(URL)
        /// A form, encoded when the request starts: in memory up to
        /// `threshold` bytes, else to a file in `directory`.
        case multipart(MultipartFormData, threshold: UInt64, directory: URL)
        /// A stream, copied to a temporary file when the request starts.
        case stream(UploadStream)
    }

    /// What the upload was given to send.
    let source: Source

    /// The file manager given to the factory (Alamofire's `fileManager`):
    /// the one whose temporary directory holds a form encoded to a file or
    /// an `InputStream`'s copy.
    public let fileManager: FileManager

    /// What makes the upload's ``Uploadable`` (Alamofire's `upload`): the
    /// data, file, form or stream given to the factory. The request calls
    /// it once as it starts; a stream can be read once only.
    public var upload: any UploadableConvertible { source }

    /// What the upload sends once it is ready (Alamofire's `Uploadable`).
    public enum Uploadable: Sendable, Equatable {
        /// Bytes in memory: the data given, or a form encoded in memory.
        case data(Data)
        /// A file streamed from disk. `shouldRemove`: a temporary file of the
        /// library's (a form encoded to a file, a copied `InputStream`),
        /// removed by the upload's `fileManager` before the handlers run;
        /// `false` for the file you gave.
        case file(URL, shouldRemove: Bool)

        init?(_ body: UploadBody) {
            switch body {
            case .inRequest: return nil
            case .file(let url): self = .file(url, shouldRemove: false)
            case .temporaryFile(let url): self = .file(url, shouldRemove: true)
            case .encoded(let data): self = .data(data)
            }
        }
    }

    /// What the upload sends (Alamofire's `uploadable`): data at once; a
    /// file, a form or a stream once the request started and prepared it.
    /// `nil` before that, or when it could not be prepared
    /// (``HTTPError/multipartEncodingFailed(reason:)``,
    /// ``HTTPError/createUploadableFailed(error:)``).
    public var uploadable: Uploadable? {
        mutableState.withLock(owner: self) { state in
            guard case .upload(let upload) = state.kind else { return nil }
            return upload.uploadable
        }
    }

    init(
        session: Session, urlRequest: URLRequest, uploadable source: Source, interceptor: (any RequestInterceptor)?,
        fileManager: FileManager = .default, madeFrom convertible: (any URLRequestConvertible)? = nil
    ) {
        self.source = source
        self.fileManager = fileManager
        var upload = RequestStateMachine.Upload()
        if case .data(let data) = source {
            upload.body = .encoded(data)
            upload.uploadable = .data(data)
        }
        super.init(session: session, urlRequest: urlRequest, interceptor: interceptor, kind: .upload(upload), madeFrom: convertible)
    }

    init(
        session: Session, failedWith error: HTTPError, urlRequest: URLRequest? = nil, fileManager: FileManager = .default,
        madeFrom convertible: (any URLRequestConvertible)? = nil
    ) {
        self.source = .data(Data())
        self.fileManager = fileManager
        super.init(session: session, failedWith: error, urlRequest: urlRequest, madeFrom: convertible)
    }

    override func unobservedCopy(on session: Session) -> Request? {
        guard let urlRequest else { return nil }
        return UploadRequest(session: session, urlRequest: urlRequest, uploadable: source, interceptor: interceptor, fileManager: fileManager)
    }

    /// Data is ready as it is (and reported ready as the request starts); a file, a form or a stream is prepared.
    override var preparesBody: Bool { true }

    /// The upload's file manager removes what it wrote (as Alamofire's does).
    override func removeTemporaryFile(_ file: URL?) {
        if let file { try? fileManager.removeItem(at: file) }
    }

    /// A form's `Content-Type`, unless the rebuilt request sets one.
    override func completingRebuilt(_ rebuilt: URLRequest) -> URLRequest {
        guard case .multipart(let form, _, _) = source, rebuilt.value(forHTTPHeaderField: "Content-Type") == nil else { return rebuilt }
        var completed = rebuilt
        completed.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
        return completed
    }

    override func prepareBody(_ done: @escaping @Sendable (Result<UploadBody, HTTPError>) -> Void) {
        switch source {
        case .data, .file:
            done(Result { () throws(HTTPError) in try source.prepared(limit: 0, isCancelled: { false }) })
        case .multipart, .stream:
            // Encoding a form reads whole files and reading a stream may
            // block: never on the caller's thread.
            let (source, limit) = (self.source, core.maximumStreamedBodySize)
            DispatchQueue.global().async {
                done(Result { () throws(HTTPError) in
                    try source.prepared(limit: limit, isCancelled: { self.isCancelled }) { stream in
                        self.eventMonitor?.request(self, didProvideInputStream: stream)
                    }
                })
            }
        }
    }
}

extension UploadRequest.Source {
    /// What every attempt sends, made on the calling thread: data and a file
    /// as they are, a form encoded (to a temporary file past its threshold),
    /// a stream copied to a temporary file of at most `limit` bytes, stopped
    /// when `isCancelled` says so (and handed to `read` once read and closed).
    func prepared(limit: Int, isCancelled: () -> Bool, read: (InputStream) -> Void = { _ in }) throws(HTTPError) -> UploadBody {
        switch self {
        case .data(let data):
            return .encoded(data)
        case .file(let url):
            return .file(url)
        case .multipart(let form, let threshold, let directory):
            do {
                switch try form.encodedForUpload(threshold: threshold, in: directory, streamLimit: limit, isCancelled: isCancelled) {
                case .data(let data): return .encoded(data)
                case .file(let file): return .temporaryFile(file)
                }
            } catch {
                throw error as? HTTPError ?? .multipartEncodingFailed(reason: .outputStreamWriteFailed(error: error))
            }
        case .stream(let stream):
            return .temporaryFile(try stream.spool(limit: limit, isCancelled: isCancelled, read: read))
        }
    }
}
