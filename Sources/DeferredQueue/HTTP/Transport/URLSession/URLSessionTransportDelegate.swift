import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport's session-level delegate: a stateless router.
///
/// It keeps nothing: an attempt's events reach the
/// ``URLSessionAttemptDelegate`` stored in its task's `delegate`, which
/// applies the transport contract's policies — never follow a redirect,
/// never answer a challenge (the ``Session`` does both). URLSession asks a
/// task's own delegate first for both (corelibs asks only it), so they are
/// not routed here.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        (downloadTask.delegate as? URLSessionAttemptDelegate)?.urlSession(session, downloadTask: downloadTask, didFinishDownloadingTo: location)
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        (downloadTask.delegate as? URLSessionAttemptDelegate)?.urlSession(
            session, downloadTask: downloadTask, didWriteData: bytesWritten,
            totalBytesWritten: totalBytesWritten, totalBytesExpectedToWrite: totalBytesExpectedToWrite
        )
    }

    #if canImport(FoundationNetworking)
    func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        URLSessionAttemptDelegate.decline(challenge, completionHandler)
    }
    #else
    // No session-level challenge handler on Apple platforms: URLSession then
    // sends server-trust challenges to the task-level one, which hands them
    // to the task's own delegate (it knows the attempt's evaluator). A task
    // without one (none of this transport's) gets nothing trusted by default.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let attempt = task.delegate as? URLSessionAttemptDelegate else {
            return completionHandler(.cancelAuthenticationChallenge, nil)
        }
        attempt.urlSession(session, task: task, didReceive: challenge, completionHandler: completionHandler)
    }
    #endif

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let attempt = dataTask.delegate as? URLSessionAttemptDelegate else { return completionHandler(.allow) }
        attempt.urlSession(session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        (dataTask.delegate as? URLSessionAttemptDelegate)?.urlSession(session, dataTask: dataTask, didReceive: data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        (task.delegate as? URLSessionAttemptDelegate)?.urlSession(
            session, task: task, didSendBodyData: bytesSent,
            totalBytesSent: totalBytesSent, totalBytesExpectedToSend: totalBytesExpectedToSend
        )
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        (task.delegate as? URLSessionAttemptDelegate)?.urlSession(session, task: task, didCompleteWithError: error)
    }
}

/// The per-task delegate of an attempt: forwards its events (a collecting
/// attempt's body goes to its handle's ``HTTPBodyCollector``, handed over at
/// completion).
final class URLSessionAttemptDelegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    let events: any HTTPTransportEvents
    let handle: URLSessionAttemptTask
    /// The file the body is read from, if any.
    let bodyFile: UploadedFile?

    init(events: any HTTPTransportEvents, handle: URLSessionAttemptTask, bodyFile: UploadedFile? = nil) {
        self.events = events
        self.handle = handle
        self.bodyFile = bodyFile
    }

    /// Stops the task and reports its body's file changed, once.
    private func stopChangedBodyFile(_ file: URL, announced: Int64, url: URL?) {
        guard handle.stopChangedBodyFile() else { return }
        handle.cancel()
        events.didComplete(body: nil, error: HTTPTransportAttempt.bodyFileChangedLength(file, announced: announced, url: url))
    }

    /// Whether `challenge` asks for HTTP authentication (rather than for
    /// server trust or a client certificate, which only Apple platforms send).
    static func isHTTPAuthentication(_ challenge: URLAuthenticationChallenge) -> Bool {
        #if canImport(FoundationNetworking)
        return true
        #else
        let method = challenge.protectionSpace.authenticationMethod
        return method != NSURLAuthenticationMethodServerTrust && method != NSURLAuthenticationMethodClientCertificate
        #endif
    }

    /// Declines a session-level challenge (TLS, proxies): default handling.
    static func decline(
        _ challenge: URLAuthenticationChallenge,
        _ completionHandler: (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        completionHandler(.performDefaultHandling, nil)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // HTTP authentication is the session's: stop the task, which then
        // completes with the 401/407 response (corelibs 6.3.1 otherwise waits
        // forever, #5456; `.performDefaultHandling` hangs, `.useCredential`
        // with nil crashes). Server-trust and client-certificate challenges
        // get the system's default handling.
        #if canImport(Security) && !canImport(FoundationNetworking)
        if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
           !challenge.protectionSpace.isProxy(), let evaluator = handle.serverTrustEvaluator {
            return evaluateServerTrust(challenge, with: evaluator, completionHandler)
        }
        #endif
        guard Self.isHTTPAuthentication(challenge) else { return completionHandler(.performDefaultHandling, nil) }
        handle.declineChallenge()
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let http = response as? HTTPURLResponse {
            switch ResponseHeadRules.read(http, answering: dataTask.currentRequest ?? dataTask.originalRequest) {
            case .refused(let violation):
                // Ambiguous framing, a control character, an unsolicited 101:
                // stop before any of the body is delivered; the task then
                // completes with `badServerResponse` and no response.
                handle.refuseFraming(violation)
                // corelibs ignores the disposition: the task is stopped by hand.
                handle.cancel()
                return completionHandler(.cancel)
            case .accepted(let head):
                // An interim 1xx head is not the response: corelibs hands over
                // the final one next (or with the completion). Only those, past
                // the idle timeout: stopped, as timed out.
                if (100..<200).contains(http.statusCode), handle.interimHeadIsOverdue() {
                    handle.cancel()
                    return completionHandler(.cancel)
                }
                if !(100..<200).contains(http.statusCode), handle.reportHead() {
                    handle.expectBody(of: head)
                    events.didReceive(head: head)
                }
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        #if canImport(FoundationNetworking)
        switch handle.countChunk(data.count) {
        case .take: break
        case .drop: return
        case .stop(let tooFine):
            handle.cancel()
            return events.didComplete(body: nil, error: tooFine)
        }
        #endif
        guard handle.collects else { return events.didReceive(data: data, handled: nil) }
        guard let tooLarge = handle.collect(data) else { return }
        // Past the limit: stop the task, and report now. The task's own
        // completion can be seconds away (libcurl inflating the rest of a
        // compression bomb); it is not reported again.
        handle.cancel()
        events.didComplete(body: nil, error: tooLarge)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        handle.madeProgress()
        // A file that grew after URLSession measured it, read past the
        // `Content-Length` sent (Apple platforms; on Linux the transport's
        // stream stops at it): stop it.
        var totalBytesExpectedToSend = totalBytesExpectedToSend
        if let file = bodyFile {
            totalBytesExpectedToSend = file.announcedLength ?? totalBytesExpectedToSend
            if totalBytesExpectedToSend >= 0, totalBytesSent > totalBytesExpectedToSend {
                return stopChangedBodyFile(file.url, announced: totalBytesExpectedToSend, url: task.currentRequest?.url)
            }
        }
        events.didSend(bytes: totalBytesSent, of: totalBytesExpectedToSend >= 0 ? totalBytesExpectedToSend : nil)
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // URLSession removes `location` when this returns: move it first.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("DeferredQueue-download-\(UUID().uuidString)")
        do {
            try FileManager.default.moveItem(at: location, to: file)
            events.didFinishDownloading(to: file)
        } catch {
            handle.failDownload(error)
        }
    }

    func urlSession(
        _ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64
    ) {
        events.didDownload(bytes: totalBytesWritten, of: totalBytesExpectedToWrite >= 0 ? totalBytesExpectedToWrite : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let outcome = handle.complete(
            response: task.response, error: error, configuredFields: session.configuration.httpAdditionalHeaders
        ) else { return }
        // A head corelibs handed to no delegate method (a declined 401, an
        // Apple download task) is reported now, before the completion.
        if let head = outcome.head { events.didReceive(head: head) }
        events.didComplete(body: outcome.body, error: Self.changedBodyFile(bodyFile, of: task, failedWith: outcome.error) ?? outcome.error)
    }

    #if canImport(FoundationNetworking)
    /// libcurl asks for the body again to send the request on a new
    /// connection: refused (see ``URLSessionAttemptTask/stopResend()``). A
    /// streamed body (sent chunked) gets a stream that fails at its first
    /// read, so libcurl stops at once: with none it went on with what was
    /// left of the spent stream, nothing, and ended the chunks, a complete
    /// request with an empty body. (A `Data` or file body must get none:
    /// corelibs stops the process for a stream there.)
    func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void) {
        completionHandler(task.originalRequest?.httpBodyStream == nil ? nil : UnreadableStream())
        handle.stopResend()
    }
    #endif

    /// The failure of an upload whose file no longer has the length
    /// announced, when the server ended it before ``urlSession(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)``
    /// saw the excess (an empty reply), or waited for bytes that never came
    /// (a file that shrank): the file's change is the cause, not the reply.
    private static func changedBodyFile(_ file: UploadedFile?, of task: URLSessionTask, failedWith error: (any Error)?) -> URLError? {
        guard let file, let error, (error as? URLError)?.code != .cancelled else { return nil }
        let announced = file.announcedLength ?? task.countOfBytesExpectedToSend
        guard announced >= 0 else { return nil }
        if !file.changedLength {
            // Through a link: the size of the file read, not the link's.
            let path = file.url.resolvingSymlinksInPath().path
            guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64, size != announced
            else { return nil }
        }
        return HTTPTransportAttempt.bodyFileChangedLength(file.url, announced: announced, url: task.currentRequest?.url)
    }
}

#if canImport(FoundationNetworking)
/// A stream whose first read fails: libcurl then aborts the transfer it reads for.
final class UnreadableStream: InputStream {
    init() { super.init(data: Data()) }
    override var hasBytesAvailable: Bool { true }
    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int { -1 }
}
#endif
