import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The default ``HTTPTransport``: Foundation's `URLSession`, defended against
/// the ways it fails on Linux.
///
/// `Session(configuration:)` builds one. The transport runs its `URLSession`
/// on a copy of the configuration in which URLSession itself never follows a
/// redirect, answers an authentication challenge, or reads or writes a cookie
/// or a credential store — the ``Session`` does those, identically on every
/// transport. On swift-corelibs-foundation (Linux) that avoids, among others,
/// a request that never completes on `401 WWW-Authenticate: Basic` (#5456),
/// a `POST` body dropped on 307/308, credentials sent to another origin, and
/// cookies written to a file under `$HOME`. See RELIABILITY.md.
///
/// Also on Linux:
/// - The configuration's `urlCache` is not used: corelibs looks a task up in
///   the cache asynchronously before it starts, and a `cancel()` landing
///   during that lookup can abort the whole process ("Trying to access a
///   behaviour for a task that in not in the registry", TaskRegistry.swift).
///   The lookup also costs every request time. Apple platforms keep the cache.
/// - A body cut short fails with `URLError.networkConnectionLost` (corelibs
///   reports `URLError.unknown`), which ``RetryPolicy`` treats as transient.
/// - Idle timeouts are whole seconds: a fractional one is rounded up.
public final class URLSessionTransport: HTTPTransport {
    public let callbackQueue: DispatchQueue
    /// `nil`: URLSession (libcurl on Linux) negotiates and decodes content codings itself.
    public let acceptEncoding: String? = nil
    /// `false` on Linux: corelibs' download tasks leave their partial file
    /// behind when cancelled or failed (`_NativeProtocol.completeTask(withError:)`
    /// never removes it), so the session writes the chunks itself. `true` on
    /// Apple platforms, whose download tasks clean up after themselves.
    #if canImport(FoundationNetworking)
    public let supportsDownloadsToFile = false
    #else
    public let supportsDownloadsToFile = true
    #endif
    /// `false` on Linux: libcurl reads only the system's certificate store
    /// and passes no server-trust challenge to the delegate, so a session
    /// refuses requests to hosts its ``ServerTrustManager`` evaluates (use
    /// AsyncHTTPClientTransport there). `true` on Apple platforms, which
    /// evaluate the challenge's `SecTrust` as Alamofire does.
    #if canImport(Security) && !canImport(FoundationNetworking)
    public let supportsServerTrustEvaluation = true
    #else
    public let supportsServerTrustEvaluation = false
    #endif

    /// `false`: URLSession fails a `GET` with a body (`URLError.dataLengthExceedsMaximum`)
    /// on every platform, so a session refuses it first with a clear reason.
    public let supportsBodyInGETRequests = false

    let urlSession: URLSession
    /// ``shutdown()`` invalidated `urlSession`, on which corelibs traps at the next task.
    private let isShutDown = Atomic(false)
    /// Why the configuration's `httpAdditionalHeaders`, which URLSession adds
    /// to every request itself, may not be sent: every attempt fails with it.
    let configurationViolation: HTTPError?

    /// Whether the configuration's `httpAdditionalHeaders` name a
    /// `Content-Type`, which a file upload then keeps (see `startAttempt`).
    let configurationSetsContentType: Bool
    /// The origin credentials of the configuration's `httpAdditionalHeaders`
    /// (`Authorization`, `Cookie`), which the transport's `URLSession` does
    /// not get: it would add them to a redirect hop to another origin too. The session adds them instead, to
    /// the attempts at the request's origin (see `SessionCore.prepare`).
    let configuredCredentials: [(name: String, value: String)]

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - configuration: The configuration; the transport uses a copy
    ///     without redirects, cookies, credentials (and, on Linux, cache).
    ///     The default, ``defaultConfiguration``, has no response cache, so
    ///     nothing is written to disk unless you pass a `urlCache`.
    ///   - rootQueue: The queue ``callbackQueue`` (serial either way) targets;
    ///     `nil`: a global concurrent queue.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration, rootQueue: DispatchQueue? = nil) {
        let queue = DispatchQueue(label: "DeferredQueue.URLSessionTransport", target: rootQueue)
        let delegateQueue = BoundedDelegateQueue(runningOn: queue)
        callbackQueue = queue
        configurationViolation = RequestSyntax.configurationViolation(in: configuration.additionalHeaderFields)
        configurationSetsContentType = configuration.additionalHeaderFields.contains { HTTPHeaders.namesMatch($0.name, "Content-Type") }
        configuredCredentials = configuration.additionalHeaderFields.filter(Self.isCredential)
        urlSession = URLSession(
            configuration: Self.transportConfiguration(configuration),
            delegate: URLSessionTransportDelegate(), delegateQueue: delegateQueue
        )
    }

    /// The configuration the transport's `URLSession` runs on: a copy of
    /// `configuration` in which URLSession handles no cookies and no
    /// credentials (the ``Session`` does), and, on Linux, has no cache.
    static func transportConfiguration(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        let copy = (configuration.copy() as? URLSessionConfiguration) ?? configuration
        copy.httpCookieStorage = nil
        copy.httpShouldSetCookies = false
        // Without `.never`, corelibs parses every header line of every
        // response for cookies it then has nowhere to store.
        copy.httpCookieAcceptPolicy = .never
        copy.urlCredentialStorage = nil
        // As text (corelibs casts every name and value to `NSString`, and
        // traps on a number), without the credentials (see `configuredCredentials`).
        if copy.httpAdditionalHeaders != nil {
            copy.httpAdditionalHeaders = Dictionary(
                configuration.additionalHeaderFields.filter { !isCredential($0) }.map { ($0.name, $0.value) },
                uniquingKeysWith: { first, _ in first }
            )
        }
        #if canImport(FoundationNetworking)
        copy.urlCache = nil
        #endif
        // A request whose own timeout is not assigned gets this one, and
        // corelibs traps on a NaN, an infinity or one beyond `Int`'s range.
        copy.timeoutIntervalForRequest = idleTimeout(HTTPTransportAttempt.idleTimeout(copy.timeoutIntervalForRequest))
        return copy
    }

    /// An origin's credential: `Authorization`, `Cookie`. (`Proxy-Authorization`
    /// is the proxy's, which every hop goes through: URLSession keeps it.)
    private static func isCredential(_ field: (name: String, value: String)) -> Bool {
        field.name.caseInsensitiveCompare("Authorization") == .orderedSame || field.name.caseInsensitiveCompare("Cookie") == .orderedSame
    }

    public func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask {
        guard !isShutDown.load(ordering: .acquiring) else {
            let error = URLError(.unknown, userInfo: [
                NSLocalizedDescriptionKey: "The URLSessionTransport was shut down when the last Session using it was released; give a new Session a new transport.",
                NSURLErrorFailingURLErrorKey: attempt.request.url as Any,
            ])
            callbackQueue.async { events.didComplete(body: nil, error: error) }
            return RefusedAttemptTask()
        }
        // libcurl would send a field name or a method as it is, line breaks and all.
        if let violation = configurationViolation ?? attempt.requestSyntaxViolation {
            callbackQueue.async { events.didComplete(body: nil, error: violation) }
            return RefusedAttemptTask()
        }
        var request = attempt.request
        let timeout = Self.idleTimeout(attempt.idleTimeout)
        // Assigned only when it changes: an assigned timeout overrides the
        // configuration's `timeoutIntervalForRequest`.
        if timeout != request.timeoutInterval { request.timeoutInterval = timeout }
        // Every task reports to the delegate, collecting ones too: a task
        // with a completion handler holds the whole body before anyone sees
        // it (so no limit could stop a huge or compressed one in time), and
        // on corelibs it loses the body of a declined 401.
        let task: URLSessionTask
        var uploadedFile: UploadedFile?
        if attempt.downloadsToFile {
            task = urlSession.downloadTask(with: request)
        } else if let file = attempt.bodyFile {
            #if canImport(FoundationNetworking)
            let reader: FileBodyReader
            switch FileBodyReader.open(file) {
            case .success(let opened):
                reader = opened
            case .failure(let unreadable):
                // Naming the request's URL, as every other failure does.
                let failure = URLSessionAttemptTask.naming(unreadable, url: request.url)
                callbackQueue.async { events.didComplete(body: nil, error: failure) }
                return RefusedAttemptTask()
            }
            // Read by libcurl in its callback (see `FileBodyStream`), with the
            // length announced here. A blank field is one libcurl neither
            // adds nor sends: `Transfer-Encoding`, which it would make
            // `chunked` for a stream of unknown length, and `Content-Type`,
            // which corelibs would make a form's for a streamed `POST`.
            // (A task made with the stream in its request: a streamed-request
            // task asks the delegate for it, which refuses a new stream.)
            uploadedFile = UploadedFile(url: file, reader: reader)
            request.setValue(String(reader.length), forHTTPHeaderField: "Content-Length")
            request.setValue(" ", forHTTPHeaderField: "Transfer-Encoding")
            if !configurationSetsContentType, request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue(" ", forHTTPHeaderField: "Content-Type")
            }
            request.httpBodyStream = FileBodyStream(reader)
            task = urlSession.dataTask(with: request)
            #else
            uploadedFile = UploadedFile(url: file)
            task = urlSession.uploadTask(with: request, fromFile: file)
            #endif
        } else if let body = request.httpBody {
            // An upload task, not a data task with `httpBody`: corelibs gives
            // the latter libcurl's `application/x-www-form-urlencoded` when
            // the request names no `Content-Type`, whatever the bytes are.
            request.httpBody = nil
            task = urlSession.uploadTask(with: request, from: body)
        } else {
            task = urlSession.dataTask(with: request)
        }
        let handle = URLSessionAttemptTask(
            task: task, collector: attempt.collectsBody ? attempt.makeBodyCollector() : nil,
            serverTrustEvaluator: attempt.serverTrustEvaluator, idleTimeout: timeout
        )
        // corelibs routes only redirects and challenges to a task's own
        // delegate (response, data and completion go to the session's, which
        // forwards them here); Apple platforms route everything to it.
        task.delegate = URLSessionAttemptDelegate(
            events: events, handle: handle, bodyFile: uploadedFile
        )
        task.resume()
        return handle
    }

    public func shutdown() {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        urlSession.finishTasksAndInvalidate()
    }

    /// The attempt's idle timeout as URLSession applies it:
    /// swift-corelibs-foundation counts it in whole seconds, truncating
    /// (anything under a second times out at once), so there a fractional
    /// timeout is rounded up.
    static func idleTimeout(_ timeout: Double) -> Double {
        #if canImport(FoundationNetworking)
        return max(1, timeout.rounded(.up))
        #else
        return timeout
        #endif
    }
}
