import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request: CustomStringConvertible {
    /// The method and URL of the latest attempt (the request as built before
    /// the first), and the status code once a response arrived, e.g.
    /// `GET https://user:***@example.com/entry (200)`.
    ///
    /// A password in the URL reads `***`, so this is what to log (an event
    /// monitor can `print(request)`); `debugPrint(request)` prints the same.
    /// ``cURLDescription()`` keeps the secrets, to reproduce the request.
    public var description: String {
        let (sent, response) = mutableState.withLock(owner: self) { ($0.request, $0.response) }
        let target = ResponseSummary.target(of: sent ?? urlRequest, response: nil)
        return response.map { "\(target) (\($0.statusCode))" } ?? target
    }
}

extension DataStreamRequest.Completion: CustomStringConvertible {
    /// One line: method, URL, status and outcome, a password in the URL
    /// reading `***`, e.g. `GET https://example.com/events -> 200: success`.
    public var description: String {
        ResponseSummary.line(request: request, response: response.map(ResponseHead.init), detail: nil, timing: nil, error: error)
    }
}
