import Dispatch
import Foundation
import LockSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The attempt pipeline. For every attempt:
//
//   base request ─▶ adapters (session's, then request's) ─▶ session defaults
//   (headers, cookies) ─▶ transport ─▶ response ─▶ store cookies ─▶
//     3xx ─▶ redirect rules + redirector ─▶ next attempt
//     401 Basic + credential ─▶ same request with Authorization ─▶ next attempt
//     validators chained so far ─▶ on a failure (transport, validation, status ≥ 400)
//       retriers (session's, then request's), then RetryPolicy ─▶ retry after a delay
//     otherwise ─▶ finish: settle the outcome once, resume the handler queue
//       (a response serializer's failure may still retry: see Request+Retrying).
//
// Each step is a transition of the request's state machine
// (`RequestStateMachine`), taken under the request's one lock; the action it
// returns — start an attempt, cancel a task, settle, write a file, call
// handlers — is performed here after the lock is released. The decisions
// that run user code (adapters, redirectors, retriers) run outside it too.

extension Request {
    /// Starts running after the transition to `resumed` (which joined the registry).
    func run() {
        guard let urlRequest else { return }
        // Read where the request starts: its adapters run later, on the session's queue.
        if let refreshing = RefreshContext.interceptor {
            mutableState.withLock(owner: self) { $0.refreshingInterceptor = refreshing }
        }
        // Most kinds have no body to prepare: no closure to allocate.
        guard preparesBody else {
            guard startsOnCallbackQueue else {
                return prepareAttempt(from: urlRequest, timeoutIsAssigned: timeoutIsAssigned, onCallbackQueue: false)
            }
            return callbackQueue.async { self.prepareAttempt(from: urlRequest, timeoutIsAssigned: self.timeoutIsAssigned) }
        }
        prepareBody { prepared in
            let upload = self as? UploadRequest
            switch prepared {
            case .success(let body):
                let action = self.mutableState.withLock(owner: self) { state in
                    let action = state.bodyPrepared(body)
                    if case .prepareAttempt = action, let upload, let uploadable = UploadRequest.Uploadable(body) {
                        self.eventMonitor?.request(upload, didCreateUploadable: uploadable)
                    }
                    return action
                }
                switch action {
                case .prepareAttempt:
                    self.prepareAttempt(from: urlRequest, timeoutIsAssigned: self.timeoutIsAssigned, onCallbackQueue: false)
                case .removeTemporaryFile(let file): self.removeTemporaryFile(file)
                case .none: break
                }
            case .failure(let error):
                if let upload { self.reportWhileRunning { $0.request(upload, didFailToCreateUploadableWithError: error) } }
                self.finish(failingWith: error)
            }
        }
    }

    /// Runs the adapters on `base`, then sends it. Without adapters, or with
    /// adapters that complete at once, this stays on the calling thread. A redirect hop to another origin skips
    /// them: what they add (a bearer token) is meant for the request's origin.
    /// `timeoutIsAssigned`: whether `base.timeoutInterval` is known to have
    /// been assigned (see ``Request/timeoutIsAssigned``). Adapters run on the
    /// session's ``Session/requestQueue``, by default the transport's callback
    /// queue, as retries and redirects do: the first attempt hops there when
    /// called elsewhere (`onCallbackQueue` false: the caller's thread, often
    /// the main one, may not wait for an adapter).
    func prepareAttempt(from base: URLRequest, timeoutIsAssigned: Bool, onCallbackQueue: Bool = true) {
        // The origin check (URL host parsing) only when there is an adapter to skip.
        guard core.hasInterceptor || hasRequestInterceptors else {
            return send(base, base: base, timeoutIsAssigned: timeoutIsAssigned)
        }
        let adapters = isAtItsOrigin(base) ? core.adapters(for: self) : []
        guard !adapters.isEmpty else { return send(base, base: base, timeoutIsAssigned: timeoutIsAssigned) }
        // Adapters are handed the session: a running request holds it (and
        // one suspended meanwhile was failed by its deinit), so only a
        // request that ended meanwhile finds it gone.
        guard let session else { return finish(failingWith: .abandoned) }
        let state = mutableState.withLock(owner: self) {
            RequestAdapterState(requestID: $0.id(), session: session, refreshingInterceptor: $0.refreshingInterceptor)
        }
        guard onCallbackQueue, core.requestQueue == nil else {
            let queue = core.requestQueue ?? callbackQueue
            return queue.async { self.adapt(base, base: base, with: adapters[...], state: state) }
        }
        adapt(base, base: base, with: adapters[...], state: state)
    }

    /// Whether an attempt from `base` goes to the request's own origin (a
    /// redirect hop may lead elsewhere): what the adapters and the
    /// configuration's credentials are for. `true` when either has no URL.
    private func isAtItsOrigin(_ base: URLRequest) -> Bool {
        urlRequest?.url.flatMap { original in base.url.map { RedirectRules.isSameOrigin(original, $0) } } ?? true
    }

    /// Runs `adapters` in order on `request`, then sends it; the first error
    /// finishes the request. Each adapter's completion handler runs at most once.
    private func adapt(
        _ request: URLRequest, base: URLRequest, with adapters: ArraySlice<any RequestAdapter>, state: RequestAdapterState
    ) {
        guard isRunning else { return }
        guard let adapter = adapters.first else {
            reportWhileRunning { $0.request(self, didAdaptInitialRequest: base, to: request) }
            // An adapter may return a request built anew: nothing is known of it.
            return send(request, base: base, adaptersRan: true, timeoutIsAssigned: false)
        }
        let requestQueue = core.requestQueue
        let next = CompletionOnce<Result<URLRequest, any Error>> { result in
            switch result {
            case .success(let adapted):
                // An adapter may complete on any thread: the next one runs on the request queue too.
                guard let requestQueue else {
                    return self.adapt(adapted, base: base, with: adapters.dropFirst(), state: state)
                }
                requestQueue.async { self.adapt(adapted, base: base, with: adapters.dropFirst(), state: state) }
            case .failure(let error):
                let failure = HTTPError.requestAdaptationFailed(error: error)
                self.reportWhileRunning { $0.request(self, didFailToAdaptURLRequest: request, withError: failure) }
                // An adapter's failure is one the retriers see, as in Alamofire.
                self.retryOrFinish(dueTo: failure, built: request) { self.finish(failingWith: failure, built: request) }
            }
        }
        adapter.adapt(request, using: state) { next($0) }
    }

    /// Tells the monitors of an event, under the lock and only while the
    /// request runs: after `requestDidFinish` a monitor hears nothing more.
    private func reportWhileRunning(_ event: (CompositeEventMonitor) -> Void) {
        guard let monitor = eventMonitor else { return }
        mutableState.withLock(owner: self) { state in
            if state.isRunning { event(monitor) }
        }
    }

    /// Sends one attempt, unless the request stopped running meanwhile.
    /// The failure of an attempt after the first whose body is a stream,
    /// which the first read; `nil` for any other body. Apart from `send`, so
    /// that the rare path costs the usual one nothing.
    @inline(never)
    private static func exhaustedBodyStream(of request: URLRequest) -> HTTPError? {
        guard request.httpBody == nil, request.httpBodyStream != nil else { return nil }
        return .sessionTaskFailed(URLError(.requestBodyStreamExhausted, userInfo: [
            NSLocalizedDescriptionKey: "the request's body stream was read by an earlier attempt and cannot be sent again; "
                + "give the body as Data, a file, or through upload(_:InputStream), which every attempt sends whole",
            NSURLErrorFailingURLErrorKey: request.url as Any,
        ]))
    }

    private func send(_ adapted: URLRequest, base: URLRequest, adaptersRan: Bool = false, timeoutIsAssigned: Bool) {
        // Checked here, on the request as it will be sent, so that no path
        // (parameters, adapters, redirects, the session's fields) skips it.
        let core = self.core
        var prepared: URLRequest
        let setsFraming: Bool
        do {
            // The origin check (URL host parsing) only when the configuration has credentials to
            // withhold; of the attempt as the adapters got it (a redirect hop's target), as for
            // the adapters themselves: an adapter that points the request elsewhere is the caller's.
            let crossOrigin = !core.configuredCredentials.isEmpty && !isAtItsOrigin(base)
            (prepared, setsFraming) = try core.prepare(adapted, timeoutIsAssigned: timeoutIsAssigned, crossOrigin: crossOrigin)
        } catch {
            guard isRunning else { return }
            eventMonitor?.request(self, didFailToCreateURLRequestWithError: error)
            return finish(failingWith: error)
        }
        let evaluator: (any ServerTrustEvaluating)?
        do {
            evaluator = try core.serverTrustEvaluator(for: prepared)
        } catch {
            guard isRunning else { return }
            return finish(failingWith: error)
        }
        let sessionLimit = core.maximumResponseBodySize
        let action = mutableState.withLock(owner: self) { state -> RequestStateMachine.BeginAttemptAction in
            // Suspended: sent again from the start on resume (with the cookies of then).
            if state.isSuspended, state.waitIfSuspended({
                self.send(adapted, base: base, adaptersRan: adaptersRan, timeoutIsAssigned: timeoutIsAssigned)
            }) { return .none }
            let action = state.beginAttempt(sending: &prepared, base: base, adapted: adaptersRan ? adapted : nil, sessionBodyLimit: sessionLimit)
            if case .start(let number, _, _, _, _, _) = action {
                let monitor = eventMonitor, taskHandler = state.taskCreationHandler
                if monitor != nil || taskHandler != nil {
                    let task = RequestTask(attempt: number, request: prepared)
                    if let monitor {
                        monitor.request(self, didCreateURLRequest: prepared)
                        monitor.request(self, didCreateTask: task)
                        monitor.request(self, didResumeTask: task)
                    }
                    taskHandler?.tell(task)
                }
            }
            return action
        }
        guard case .start(let number, let bodyFile, let collectsBody, let downloadsToFile, let limit, let discarding) = action
        else { return }
        discarding?.discard()
        if bodyFile != nil { prepared.httpBody = nil }
        // With the body now known: a `Content-Length` of the caller's that
        // is not its length would frame a second request out of the body.
        if let refusal = RequestFraming.refusal(
            of: prepared, bodyFile: bodyFile, checkingFraming: setsFraming, bodyInGET: core.transport.supportsBodyInGETRequests
        ) {
            // A GET body an adapter added is the adaptation's failure, as in Alamofire.
            if adaptersRan, case .urlRequestValidationFailed(.bodyDataInGETRequest) = refusal,
               base.httpBody == nil || base.httpMethod.map({ $0 != "GET" }) ?? false {
                let failure = HTTPError.requestAdaptationFailed(error: refusal)
                eventMonitor?.request(self, didFailToAdaptURLRequest: base, withError: failure)
                return finish(failingWith: failure)
            }
            eventMonitor?.request(self, didFailToCreateURLRequestWithError: refusal)
            return finish(failingWith: refusal)
        }
        // A body stream is read once: a later attempt (a 307 or 308 hop, a
        // retry) would send it empty, or not at all. (`upload(_:InputStream)`
        // copies its stream to a file, which every attempt sends whole.)
        if number > 1, bodyFile == nil, let exhausted = Self.exhaustedBodyStream(of: prepared) { return finish(failingWith: exhausted) }
        // Monitors hear every chunk and every sent part: the transport hands them over.
        var attempt = HTTPTransportAttempt(
            request: prepared, bodyFile: bodyFile, collectsBody: collectsBody && eventMonitor == nil, maximumBodySize: limit
        )
        attempt.downloadsToFile = downloadsToFile && core.transport.supportsDownloadsToFile
        attempt.serverTrustEvaluator = evaluator
        // `prepare` checked the caller's fields; the session's own were checked
        // once; a resume's `If-Range` when its data was decoded.
        attempt.syntaxChecked = true
        let task = core.transport.startAttempt(attempt, events: AttemptEvents(request: self, attempt: number))
        if case .cancelTask(let task) = mutableState.withLock(owner: self, { $0.attach(task, toAttempt: number) }) {
            task.cancel()
        }
    }

    // MARK: - Transport events (on the transport's callback queue, but see `didCompleteDirectly`)

    func attempt(_ number: Int, didReceive response: ResponseHead) {
        var headHandler: HTTPResponseHandler?
        let action = mutableState.withLock(owner: self) { state in
            let action = state.receiveHead(response, attempt: number) { self.continues(after: response, $0) }
            switch action {
            case .reportContinuing:
                eventMonitor?.request(self, didReceive: response.response)
            case .report, .reportAndValidate:
                eventMonitor?.request(self, didReceive: response.response)
                if let handler = state.httpResponseHandler {
                    headHandler = handler
                    state.awaitDisposition(attempt: number)
                }
            case .ignore: break
            }
            return action
        }
        // Judged on the head, before any of the body reaches a stream's handlers or a file.
        if response.statusCode == 206, let sent = mutableState.withLock(owner: self, { $0.sentRequest(ofAttempt: number) }),
           let error = Self.unrequestedPart(response, answering: sent) {
            mutableState.withLock(owner: self) { $0.reject(attempt: number, with: error) }?.cancel()
        }
        if let headHandler { askDisposition(of: response, attempt: number, from: headHandler) }
        if case .reportAndValidate(let validators, let request) = action,
           let error = (self as? DataStreamRequest)?.headError(validators, request: request, response: response) {
            mutableState.withLock(owner: self) { $0.reject(attempt: number, with: error) }?.cancel()
        }
    }

    func attempt(_ number: Int, didReceive data: Data, handled: (@Sendable () -> Void)?) {
        dispatchPrecondition(condition: .onQueue(callbackQueue))
        switch mutableState.withLock(owner: self, { $0.hold(.chunk(data, handled: handled), attempt: number) }) {
        case .handle: consume(data, attempt: number, handled: handled)
        case .held: break
        case .overflow(let error): finish(failingWith: error)
        }
    }

    /// Asks `handler` whether attempt `number`'s body may follow `response`;
    /// meanwhile its events wait (a transport that waits for `handled` stops).
    private func askDisposition(of response: ResponseHead, attempt number: Int, from handler: HTTPResponseHandler) {
        let callbackQueue = self.callbackQueue
        let dispose: @Sendable (Bool) -> Void = { [weak self] allowing in self?.dispose(attempt: number, allowing: allowing) }
        handler.queue.async {
            handler.handler(response.response) { disposition in
                callbackQueue.async { dispose(disposition != .cancel) }
            }
        }
    }

    /// The head's disposition: replays the held events (unless the request
    /// is suspended), or cancels and drops them.
    private func dispose(attempt number: Int, allowing: Bool) {
        let held = mutableState.withLock(owner: self) { $0.disposed(attempt: number) }
        guard allowing else {
            cancel()
            for case .chunk(_, let handled) in held { handled?() }
            return
        }
        replay(held, attempt: number)
    }

    /// Replays what attempt `number`'s transfer sent while its events were held.
    func replay(_ held: [HeldEvent], attempt number: Int) {
        for event in held {
            switch event {
            case .chunk(let data, let handled): consume(data, attempt: number, handled: handled)
            case .completion(let body, let error): attempt(number, didCompleteWith: body, error: error)
            }
        }
    }

    func attempt(_ number: Int, didSend bytes: Int64, of expected: Int64?) {
        let handlers = mutableState.withLock(owner: self) { state in
            if let monitor = eventMonitor, state.isInFlight(attempt: number) {
                monitor.request(self, didSendBodyData: TransferProgress(completed: bytes, expected: expected))
            }
            return state.uploadProgressHandlers(attempt: number)
        }
        guard !handlers.isEmpty else { return }
        Self.report(TransferProgress(completed: bytes, expected: expected), to: handlers)
    }

    /// A collecting attempt's successful end, offered from the transport's
    /// own thread; `false` to have it reported on the callback queue. Taken
    /// only when finishing runs none of the caller's code and nothing waits
    /// on the callback queue to come first: no event monitor; a 2xx status
    /// (no redirector, challenge or retrier to ask); no cookie to store in
    /// a caller's storage (the session's own store takes it here); every
    /// validator a check of the head, and none at all when a retrier could
    /// be asked about its verdict;
    /// nothing holding the attempt's events (a suspension, a head's
    /// disposition). What follows is then what the callback queue would run:
    /// the state machine's transitions under the lock, and the outcome
    /// settled, which resumes the handler queue.
    func attempt(_ number: Int, didCompleteDirectly head: ResponseHead, body: Data) -> Bool {
        guard eventMonitor == nil, (200..<300).contains(head.statusCode),
              core.cookieStore?.isCallersStorage != true || head.value(forHTTPHeaderField: "Set-Cookie") == nil
        else { return false }
        let mayRetry = self.mayRetry
        guard mutableState.withLock(owner: self, { $0.completesDirectly(attempt: number, mayRetry: mayRetry) }) else { return false }
        attempt(number, didReceive: head)
        attempt(number, didCompleteWith: body, error: nil)
        return true
    }

    func attempt(_ number: Int, didCompleteWith body: Data?, error: (any Error)?) {
        let (hold, rejection) = mutableState.withLock(owner: self) { state in
            (state.hold(.completion(body: body, error: error), attempt: number), state.rejection(ofAttempt: number))
        }
        if case .held = hold { return }
        // A refused head ends the attempt with the validation error, however the transfer stopped.
        let failure = (rejection ?? error).map(HTTPError.init(transportError:))
        let action = mutableState.withLock(owner: self) { state in
            let action = state.completeAttempt(number, body: body)
            if case .decide(let completed) = action, let monitor = eventMonitor {
                let task = RequestTask(attempt: number, request: completed.request)
                if let failure, failure.isServerTrustEvaluationError, completed.response == nil {
                    monitor.request(self, didFailTask: task, earlyWithError: failure)
                }
                monitor.request(self, didCompleteTask: task, with: failure)
            }
            return action
        }
        guard case .decide(let completed) = action else { return }
        if let response = completed.response { core.storeCookies(from: response) }
        if let failure {
            // The transport stopped a collected body at the limit: final, as when the session stops a streamed one.
            if case .responseTooLarge = failure { return finish(failingWith: failure) }
            return decideAfterFailure(completed, error: failure, final: rejection != nil)
        }
        guard let response = completed.response else {
            return decideAfterFailure(completed, error: .sessionTaskFailed(URLError(.badServerResponse)))
        }
        let limit = completed.maximumResponseBodySize ?? core.maximumResponseBodySize
        if body != nil, completed.body.count > limit {
            return finish(failingWith: .responseTooLarge(limit: limit))
        }
        if body != nil, !completed.progressHandlers.isEmpty {
            let size = Int64(completed.body.count)
            Self.report(TransferProgress(completed: size, expected: size), to: completed.progressHandlers)
        }
        if let next = redirect(after: completed, response: response) {
            // A redirect that became a GET (303; 301/302 after a POST) leaves an upload's body behind.
            let dropsBody = next.httpMethod == "GET" && completed.request?.httpMethod != "GET"
            return followRedirect(to: next, after: response, droppingBody: dropsBody)
        }
        if let partial = mutableState.withLock(owner: self, { $0.dropUnsatisfiableResume(after: response) }) {
            // The partial file cannot be continued: start again, whole.
            try? FileManager.default.removeItem(at: partial)
            if let base = completed.base { return followRedirect(to: base) }
        }
        if let next = answer(response, credential: completed.credential, base: completed.base) {
            return prepare(next, after: mutableState.withLock(owner: self) { state in
                let action = state.answerChallenge()
                if case .prepareAttempt = action { eventMonitor?.request(self, didReceiveChallengeIn: response.response) }
                return action
            })
        }
        // A stream's final head, not judged as it arrived: it looked like one the request goes on from.
        if let stream = self as? DataStreamRequest,
           let (validators, request) = mutableState.withLock(owner: self, { $0.deferredHeadValidation() }),
           let error = stream.headError(validators, request: request, response: response) {
            return decideAfterFailure(completed, error: error, final: true)
        }
        judge(completed, response: response)
    }

    /// The failure of a `206` to a request that asked for no range, unless
    /// its `Content-Range` spans the whole entity and its `Content-Length`
    /// says the body is that long (the transport holds the body to it): the
    /// body is a part, and delivering it would pass a fragment off as the
    /// response (RFC 9110 lets a server send `206` only to a `Range` request).
    @inline(never)
    private static func unrequestedPart(_ response: ResponseHead, answering sent: URLRequest) -> HTTPError? {
        guard sent.value(forHTTPHeaderField: "Range") == nil else { return nil }
        let field = response.value(forHTTPHeaderField: "Content-Range")
        let reason: String
        if let range = field.flatMap(ContentRange.init), range.first == 0, let complete = range.complete, range.last == complete - 1 {
            let length = response.value(forHTTPHeaderField: "Content-Length").flatMap(ContentLength.parse)
            if length == complete { return nil }
            reason = length.map { "its Content-Length (\($0)) is not the entity's length" }
                ?? "it has no Content-Length to hold the body to the entity's length"
        } else {
            reason = "the body is only part of it"
        }
        return .sessionTaskFailed(URLError(.badServerResponse, userInfo: [
            NSLocalizedDescriptionKey: "the server answered a request for the whole resource with 206 Partial Content "
                + "(Content-Range: \(field.map { String($0.prefix(80)).debugDescription } ?? "none")): \(reason)",
            NSURLErrorFailingURLErrorKey: sent.url as Any,
        ]))
    }

    // MARK: - Decisions

    /// The next request when `response` is a redirect this request follows;
    /// `nil` to deliver `response` as it is.
    private func redirect(after completed: CompletedAttempt, response: ResponseHead) -> URLRequest? {
        guard let sent = completed.request,
              let candidate = RedirectRules.nextRequest(after: sent, base: completed.base, response: response)
        else { return nil }
        let redirector = completed.redirector ?? core.redirectHandler
        return redirector.decide(candidate, response: response)
    }

    private func followRedirect(to next: URLRequest, after response: ResponseHead? = nil, droppingBody: Bool = false) {
        var leftover: URL?
        let action = mutableState.withLock(owner: self) { state in
            if droppingBody { leftover = state.dropUploadBody() }
            let action = state.followRedirect(limit: Session.redirectLimit)
            if case .prepareAttempt = action, let response, let monitor = eventMonitor {
                monitor.request(self, willPerformHTTPRedirection: response.response, newRequest: next)
            }
            return action
        }
        removeTemporaryFile(leftover)
        prepare(next, after: action)
    }

    /// Prepares the attempt that follows a redirect or answers a challenge.
    private func prepare(_ next: URLRequest, after action: RequestStateMachine.NextAttemptAction) {
        switch action {
        // A redirector or the challenge may have built `next` anew: nothing is known of it.
        case .prepareAttempt: prepareAttempt(from: next, timeoutIsAssigned: false)
        case .fail(let error): finish(failingWith: error)
        case .none: break
        }
    }

    /// Whether a stream's request goes on from `response`: a redirect it
    /// follows, or a challenge it answers. Known as the head arrives, but for
    /// a `.modify` redirector, which is asked when the attempt completes (a
    /// declined redirect then ends the stream without the head's body).
    private func continues(after response: ResponseHead, _ context: RequestStateMachine.HeadContext) -> Bool {
        guard (300..<400).contains(response.statusCode) else {
            return answer(response, credential: context.credential, base: context.base) != nil
        }
        guard let sent = context.sent, RedirectRules.nextRequest(after: sent, base: context.base, response: response) != nil
        else { return false }
        if case .doNotFollow = (context.redirector ?? core.redirectHandler).behavior { return false }
        return true
    }

    /// The same request with `Authorization: Basic …` when `response` is a
    /// `Basic` challenge from the request's own origin and `credential`
    /// (one not sent yet) answers it.
    private func answer(_ response: ResponseHead, credential: URLCredential?, base: URLRequest?) -> URLRequest? {
        guard response.statusCode == 401, let credential,
              let user = credential.user, let password = credential.password,
              BasicChallenge.isOffered(by: response),
              let original = urlRequest?.url, let base, let url = base.url,
              RedirectRules.isSameOrigin(original, url)
        else { return nil }
        var next = base
        next.setValue(HTTPHeader.authorization(username: user, password: password).value, forHTTPHeaderField: "Authorization")
        return next
    }

    /// Asks the retriers, then the session's ``RetryPolicy``, whether a failed
    /// attempt is retried; otherwise finishes with it. `verdicts`: what the
    /// validators said of it, for the handlers.
    /// `final`: the error stays when nothing retries (a stream's refused
    /// head), as a transport failure's does.
    func decideAfterFailure(
        _ completed: CompletedAttempt, error: HTTPError, verdicts: [ValidationResult]? = nil, final: Bool = false
    ) {
        let transportError = final || completed.response == nil || error.urlError != nil
        retryOrFinish(dueTo: error) { self.finish(with: completed, error: transportError ? error : nil, verdicts: verdicts) }
    }

    // MARK: - Finishing

    /// Settles the outcome with the attempt's response (and `error`, for a
    /// transport failure).
    func finish(with completed: CompletedAttempt, error: HTTPError?, verdicts: [ValidationResult]? = nil) {
        let end = Date()
        let raw = RawResponse(
            request: completed.request, response: completed.response, data: completed.data, error: error, end: end, verdicts: verdicts
        )
        let action = mutableState.withLock(owner: self) { state in
            let action = finish(&state, end: end)
            // A failed verdict the handlers apply themselves is the request's
            // error from now on, as Alamofire's is once its validators ran:
            // no step records it (a step records its own, when it runs).
            if state.verdictsForHandlers > 0, case .settle = action, raw.error == nil,
               let failed = raw.applyingVerdicts(of: state.verdictsForHandlers).error {
                state.recordFailure(failed)
            }
            return action
        }
        guard case .settle(let leftovers) = consume action else { return }
        settle(raw, leftovers)
    }

    /// Settles the outcome with `error`, cancelling whatever still runs.
    /// `built`: the request the outcome names when no attempt was sent (one
    /// an adapter failed on).
    func finish(failingWith error: HTTPError, built: URLRequest? = nil) {
        var request: URLRequest?, response: ResponseHead?
        let end = Date()
        let action = mutableState.withLock(owner: self) { state in
            let action = finish(&state, end: end)
            if case .settle = action { (request, response) = (built ?? state.request, state.response) }
            return action
        }
        guard case .settle(let leftovers) = action else { return }
        settle(RawResponse(request: request, response: response, data: nil, error: error, end: end), leftovers)
    }

    /// The transition to finished, under the lock, and its events.
    private func finish(_ state: inout RequestStateMachine, end: Date) -> RequestStateMachine.FinishAction {
        let action = state.finish()
        // The monitor first: matching the action copies its leftovers.
        if let monitor = eventMonitor, case .settle = action { tellFinished(monitor, end: end) }
        return action
    }

    /// The request's last two events: its timing, then that it finished.
    func tellFinished(_ monitor: CompositeEventMonitor, end: Date = Date()) {
        monitor.request(self, didGatherTiming: ResponseTiming(start: start, end: end))
        monitor.requestDidFinish(self)
    }

    /// After the transition: stops what runs, resumes the handler queue with
    /// the outcome, and releases what the request held.
    private func settle(_ raw: RawResponse, _ leftovers: RequestStateMachine.Leftovers) {
        leftovers.task?.cancel()
        leftovers.retryDelay?.cancel()
        for handled in leftovers.handled { handled() }
        if let error = raw.error { mutableState.withLock(owner: self) { $0.recordFailure(error) } }
        let final = finalOutcome(raw, file: leftovers.downloadFile)
        // Before the handlers run: when they see the outcome, nothing of the upload is left on disk.
        removeTemporaryFile(leftovers.temporaryFile)
        // Before the handlers run too: they see the request gone from the
        // session's running ones, and a handler that retries it (`reopen`)
        // joins the registry again after this, not before.
        registry.remove(self)
        let rootQueue = core.transport.callbackQueue
        guard !leftovers.progressHandlers.contains(where: { $0.queue === rootQueue }),
              !leftovers.uploadProgressHandlers.contains(where: { $0.queue === rootQueue })
        else {
            // Alamofire serializes on a queue that targets its root queue, so
            // what progress it reported there has run before any response
            // handler: the outcome is delivered behind it.
            return rootQueue.async { self.deliver(final, parked: leftovers.parked, lane: leftovers.lane) }
        }
        deliver(final, parked: leftovers.parked, lane: leftovers.lane)
    }

    /// Hands the settled outcome to the handlers (or to the one parked on a reopened request).
    private func deliver(_ final: RawResponse, parked: RequestStateMachine.ParkedHandler?, lane: HandlerLane) {
        if let parked {
            resumeParked(parked, with: .success(final))
        } else {
            if let lane = lane.target(forBodyOf: final.data?.count ?? 0) { outcome.retarget(to: lane) }
            resolver.fulfill(final)
        }
        // After the handlers are enqueued: it runs behind them. Every
        // settlement with a response must end here: a validation step may
        // hold the request unowned (`appendValidationStep`) and relies on it.
        keepAliveForHandlers()
    }

    // MARK: - Progress

    /// The decoded body length a response announces, or `nil` when unknown —
    /// also when the body is compressed (`Content-Length` then counts
    /// compressed bytes, though transports hand over decoded ones).
    static func decodedLength(of response: ResponseHead) -> Int64? {
        HTTPBodyCollector.decodedLength(
            contentLength: response.expectedContentLength, contentEncoding: response.value(forHTTPHeaderField: "Content-Encoding"))
    }

    static func report(_ progress: TransferProgress, to handlers: [ProgressHandler]) {
        for progressHandler in handlers {
            progressHandler.queue.async { progressHandler.handler(progress) }
        }
    }
}
