import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension DownloadRequest {
    /// What a download was made from (Alamofire's `Downloadable`).
    public enum Downloadable: Sendable {
        /// A request: the ``URLRequestConvertible`` you passed, or for a
        /// download made from a URL the request as built (see ``DataRequest/convertible``).
        case request(any URLRequestConvertible)
        /// The ``DownloadRequest/resumeData`` of an earlier download, as you
        /// passed it to ``Session/download(resumingWith:interceptor:shouldAutomaticallyResume:to:)``.
        case resumeData(Data)
    }

    /// What the download was made from (Alamofire's `downloadable`).
    public var downloadable: Downloadable {
        if let resumed = madeFrom?.convertible as? ResumedDownload { return .resumeData(resumed.resumeData) }
        return .request(madeFromConvertible)
    }
}

/// What a download resumed from resume data was made from: the data, and the
/// request decoded from it (or why it could not be).
struct ResumedDownload: URLRequestConvertible {
    let resumeData: Data
    let built: Result<URLRequest, HTTPError>

    func asURLRequest() throws -> URLRequest {
        try built.get()
    }
}
