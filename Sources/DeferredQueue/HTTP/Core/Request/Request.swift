import Dispatch
import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request: its attempts, its state, and the handlers chained onto it.
///
/// `Request` is the base of every request kind: ``DataRequest`` (and its
/// ``UploadRequest``), ``DownloadRequest`` and ``DataStreamRequest``. A
/// ``Session`` creates it; you chain handlers onto it.
///
/// ## The execution model
///
/// A request owns one serial queue, created suspended. Every handler —
/// `response…`, `validate`, `serializing…` — is enqueued on it when you call
/// it. When the request finishes (after the redirects, authentication round
/// trips and retries the session decides on), the outcome is stored once and
/// the queue is resumed once: the handlers run in the order you chained them,
/// each exactly once, and only ever see the final attempt. A handler added
/// after completion still runs, after the earlier ones. Because ``validate()``
/// is enqueued like a handler, it affects only the handlers chained after it.
///
/// ## When it starts
///
/// The first `response…`, `serializing…` or ``downloadProgress(queue:closure:)``
/// call starts it, or ``resume()``. A request that gets none of these and is
/// not cancelled is sent when its last reference goes (fire and forget). A
/// request made with `shouldAutomaticallyResume: false`, or by a session
/// made with `startRequestsImmediately: false`, starts only at ``resume()``
/// and is never sent without it. A running request is kept alive by its
/// session, and keeps the session alive (but not while suspended mid-run:
/// see ``suspend()``); so does a request that waits to start. A finished
/// request does not: once you release the session, its
/// finished requests no longer reach it (``session`` is then `nil`).
///
/// ## Threading
///
/// Transport events arrive on the transport's serial ``HTTPTransport/callbackQueue``.
/// Validation and serialization run on the request's own handler queue,
/// which targets the session's ``Session/serializationQueue`` (by default a
/// global concurrent queue: requests serialize in parallel). Completion
/// handlers then run on the `queue:` they name (`.main` by default).
/// Properties and methods of a request may be used from any thread.
///
/// - Note: `@unchecked Sendable` because a non-final class cannot be checked;
///   every stored property is a constant, and everything that changes sits in
///   `mutableState`, behind its one lock — except the monitors added with
///   ``eventMonitor(_:)``, set once in `requestMonitors` behind a leaf lock of
///   their own (events are told under `mutableState`'s lock; see `RequestMonitors`).
public class Request: @unchecked Sendable {
    /// The session that created this request (Alamofire's weak `delegate`):
    /// held strongly until the request finishes or is cancelled, weakly
    /// after (and while it is suspended mid-run), so a finished request you
    /// keep does not keep its session (and its connections) alive. `nil`
    /// once such a session is gone.
    public weak let session: Session?
    /// What the session's requests run on: held for the request's life
    /// (see ``SessionCore`` for why requests do not use `session` itself).
    let core: SessionCore
    /// The monitors told of this request's events (Alamofire's
    /// `eventMonitor`): its session's, then those added with
    /// ``eventMonitor(_:)``; `nil` when there are none.
    public var eventMonitor: CompositeEventMonitor? {
        guard let requestMonitors = requestMonitors.load(ordering: .acquiring) else { return core.eventMonitor }
        return requestMonitors.takeUnretainedValue().monitor
    }
    /// Set once, by the first ``eventMonitor(_:)``, to a box retained until
    /// `deinit`; until then the session's monitors are read from the core.
    /// An `Atomic` rather than an `AtomicLazyReference`, whose `load()` is
    /// not inlinable: each read looked its generic metadata up at run time.
    private let requestMonitors = Atomic<Unmanaged<RequestMonitors>?>(nil)
    /// The session transport's serial callback queue.
    var callbackQueue: DispatchQueue { core.callbackQueue }
    /// The session's running requests.
    var registry: RequestRegistry { core.registry }
    /// Where work that belongs with the handlers runs while the handler
    /// queue waits: the queue it targets (the session's serialization queue).
    var handlerTargetQueue: DispatchQueue { core.serializationQueue ?? deferredQueueDefaultTarget }
    /// The request as built, before adapters, cookies and redirects; `nil`
    /// when it could not be built (invalid URL, parameters that failed to encode).
    public let urlRequest: URLRequest?
    /// The interceptor the request was made with (Alamofire's
    /// `interceptor`), consulted after the session's and before those added
    /// with ``interceptor(_:)``.
    public let interceptor: (any RequestInterceptor)?
    /// The request's suspended serial queue and its once-stored outcome.
    let outcome: Deferred<RawResponse>
    /// The producing side of `outcome`. Released while pending (a request
    /// that never started and was never cancelled), it settles it as abandoned.
    let resolver: Resolver<RawResponse>
    /// When the request was created.
    let start = Date()
    /// Everything that changes, behind the request's one lock: the
    /// request's state machine.
    let mutableState: Mutex<RequestStateMachine>
    /// Whether `urlRequest.timeoutInterval` is known to have been assigned
    /// (the session built the request): attempts may then duplicate it
    /// cheaply (see `URLRequest.duplicatedWithAssignedTimeout()`).
    let timeoutIsAssigned: Bool
    /// Whether `interceptor` is set (tested on every request; testing the
    /// optional existential copies it).
    let hasOwnInterceptor: Bool
    /// The ``URLRequestConvertible`` the request was made from, when it was
    /// made from one (boxed: most requests are not, and pay one pointer).
    let madeFrom: ConvertibleBox?

    init(
        session: Session, urlRequest: URLRequest, interceptor: (any RequestInterceptor)?,
        timeoutIsAssigned: Bool = false, kind: RequestStateMachine.Kind = .data, madeFrom: (any URLRequestConvertible)? = nil
    ) {
        self.madeFrom = madeFrom.map(ConvertibleBox.init)
        self.session = session
        let core = session.core
        self.core = core
        self.urlRequest = urlRequest
        self.interceptor = interceptor
        self.hasOwnInterceptor = interceptor != nil
        self.timeoutIsAssigned = timeoutIsAssigned
        // A session's `serializationQueue` is where every handler queue runs;
        // otherwise each request's may follow its handlers (`HandlerLane`).
        let lane: HandlerLane
        if let serializationQueue = core.serializationQueue {
            (outcome, resolver) = Deferred<RawResponse>.pending(targeting: serializationQueue)
            lane = .shared
        } else {
            (outcome, resolver) = Deferred<RawResponse>.pendingRetargetable()
            lane = .unchosen
        }
        var machine = RequestStateMachine(kind: kind, tail: outcome)
        machine.handlerLane = lane
        machine.resumesWithFirstHandler = core.startRequestsImmediately
        machine.owner = session
        mutableState = Mutex(machine)
    }

    /// A request that failed before it could start: it is finished from the
    /// start and every handler receives `error`.
    init(
        session: Session, failedWith error: HTTPError, urlRequest: URLRequest? = nil, madeFrom: (any URLRequestConvertible)? = nil
    ) {
        self.madeFrom = madeFrom.map(ConvertibleBox.init)
        self.session = session
        let core = session.core
        self.core = core
        self.urlRequest = nil
        self.interceptor = nil
        self.hasOwnInterceptor = false
        self.timeoutIsAssigned = false
        (outcome, resolver) = Deferred<RawResponse>.pending()
        var machine = RequestStateMachine(failedSending: urlRequest, tail: outcome)
        machine.failure = error
        mutableState = Mutex(machine)
        resolver.fulfill(RawResponse(request: urlRequest, response: nil, data: nil, error: error, end: start))
    }

    deinit {
        requestMonitors.load(ordering: .acquiring)?.release()
        // Nothing was chained onto the request and it was not cancelled: it
        // still goes out, as a fire-and-forget request whose answer no one reads.
        let (unstarted, owner, redirector, credential) = mutableState.withLock(owner: self) {
            // A request that waits for `resume()` is never sent unless resumed.
            ($0.requestState == .initialized && $0.resumesWithFirstHandler, $0.owner, $0.redirector, $0.credential)
        }
        if unstarted, let owner, let copy = unobservedCopy(on: owner) {
            if let redirector { copy.redirect(using: redirector) }
            if let credential { copy.authenticate(with: credential) }
            copy.resume()
        }
    }

    /// What a fire-and-forget request sends when it is released unstarted:
    /// a copy of this request with the same pipeline, or `nil` not to send
    /// (downloads and streams, whose body nobody would read). Built at init,
    /// so `deinit` reads a constant instead of calling an overridable method.
    func unobservedCopy(on session: Session) -> Request? {
        guard let urlRequest else { return nil }
        return DataRequest(session: session, urlRequest: urlRequest, interceptor: interceptor, timeoutIsAssigned: timeoutIsAssigned)
    }

    // MARK: - State

    /// Whether the first handler starts the request (`true`) or it waits
    /// for ``resume()``; `nil` keeps the session's
    /// ``Session/startRequestsImmediately``. For the factories'
    /// `shouldAutomaticallyResume:`.
    func resumes(automatically: Bool?) -> Self {
        if let automatically { mutableState.withLock(owner: self) { $0.resumesWithFirstHandler = automatically } }
        return self
    }

    /// The request's identity, stable for its life (Alamofire's `id`):
    /// adapters see it in ``RequestAdapterState/requestID``.
    public var id: UUID {
        mutableState.withLock(owner: self) { $0.id() }
    }

    /// Every `URLRequest` made for the request, in order (Alamofire's
    /// `requests`): for each attempt (a retry, a redirect hop), the request
    /// before the adapters, then, when adapters ran, the adapted one. Unlike
    /// ``request``, they do not hold the session's default header fields
    /// and cookies, which are added when an attempt is sent.
    public var requests: [URLRequest] {
        mutableState.withLock(owner: self) { $0.created.all }
    }

    /// The first of ``requests``: the request as built, once the first attempt began.
    public var firstRequest: URLRequest? { requests.first }

    /// The last of ``requests``.
    public var lastRequest: URLRequest? { requests.last }

    /// Why the request failed, if it did (Alamofire's `error`): the error it
    /// finished with (a transport failure, an adapter's, ``HTTPError/cancelled``),
    /// or the first failure a validator chained onto it returned — from the
    /// moment the request finished for a validator chained before that, as
    /// in Alamofire; for one chained later, once it ran. A response
    /// serializer's failure is in its response only.
    public var error: HTTPError? {
        mutableState.withLock(owner: self) { $0.failure ?? ($0.requestState == .cancelled ? .cancelled : nil) }
    }

    /// Alamofire's name for ``RequestState``.
    public typealias State = RequestState

    /// Where the request is in its life.
    public var state: RequestState {
        mutableState.withLock(owner: self) { $0.requestState }
    }

    /// The request as the latest attempt sent it — after adapters, default
    /// headers, cookies, credentials and redirects — or `nil` before the first.
    public var request: URLRequest? {
        mutableState.withLock(owner: self) { $0.request }
    }

    /// The credential given to ``authenticate(with:)`` or
    /// ``authenticate(username:password:persistence:)``, if any.
    public var credential: URLCredential? {
        mutableState.withLock(owner: self) { $0.credential }
    }

    /// The serial queue the transport reports this request's events on, and
    /// where the request's own work runs (Alamofire's `underlyingQueue`: the
    /// session's ``Session/rootQueue``).
    public var underlyingQueue: DispatchQueue { callbackQueue }

    /// The queue the request's serial handler queue targets (Alamofire's
    /// `serializationQueue`, there the queue serializers run on): the
    /// session's ``Session/serializationQueue``, or when it has none the
    /// concurrent pool every deferred's queue targets. Serializers run on the
    /// handler queue, in order; one whose handlers all name one queue may
    /// target that queue instead.
    public var serializationQueue: DispatchQueue { handlerTargetQueue }

    /// The latest attempt (Alamofire's `task`, transport-neutral), or `nil`
    /// before the first was sent.
    public var task: RequestTask? {
        mutableState.withLock(owner: self) { $0.task }
    }

    /// Every attempt that began, in order, the latest last (Alamofire's
    /// `tasks`): one per send, retry, redirect hop and authentication round trip.
    public var tasks: [RequestTask] {
        mutableState.withLock(owner: self) { $0.tasks }
    }

    /// The first attempt, or `nil` before it was sent.
    public var firstTask: RequestTask? { tasks.first }

    /// The latest attempt (``task``).
    public var lastTask: RequestTask? { task }

    /// The request each attempt sent, in order (Alamofire's `performedRequests`).
    public var performedRequests: [URLRequest] { tasks.compactMap(\.request) }

    /// When the request started and when its outcome was ready (Alamofire's
    /// `metrics`), or `nil` until then; its responses carry the same.
    public var timing: ResponseTiming? {
        settledResponse.map { ResponseTiming(start: start, end: $0.end) }
    }

    /// The raw outcome once the request settled with one, or `nil` (pending,
    /// or cancelled before a response).
    var settledResponse: RawResponse? {
        guard !outcome.isPending, case .success(let raw) = outcome.outcomeOnceSettled() else { return nil }
        return raw
    }

    /// The latest attempt's response, or `nil` before one arrived.
    public var response: HTTPURLResponse? {
        mutableState.withLock(owner: self) { $0.response }?.response
    }

    /// The latest attempt's response head (``response`` made only when asked).
    var responseHead: ResponseHead? {
        mutableState.withLock(owner: self) { $0.response }
    }

    /// How many times the request was retried (redirects and authentication
    /// round trips are not retries).
    public var retryCount: Int {
        mutableState.withLock(owner: self) { $0.retryCount }
    }

    /// The HTTP method, `GET` when unknown.
    var method: HTTPMethod {
        HTTPMethod(rawValue: urlRequest?.httpMethod ?? "GET")
    }

    // MARK: - Control

    /// Starts the request now, if it has not started yet, or lets a
    /// suspended request go on.
    ///
    /// A request starts by itself when its first handler (`response…`,
    /// `serializing…`) or ``downloadProgress(queue:closure:)`` is added, or, when it
    /// gets none, as its last reference goes. After ``suspend()``, only
    /// `resume()` lets it go on: what its transfer sent meanwhile reaches it
    /// in order, then the attempt the suspension stopped is sent. Idempotent;
    /// does nothing once the request is cancelled or finished.
    ///
    /// - Returns: The request, for chaining.
    @discardableResult
    public func resume() -> Self {
        let session = session
        let (unsuspended, action) = mutableState.withLock(owner: self) { state in
            let unsuspended = state.unsuspend(holding: session)
            if case .proceed(let number, _) = unsuspended, let monitor = eventMonitor {
                monitor.requestDidResume(self)
                if let number { monitor.request(self, didResumeTask: RequestTask(attempt: number, request: state.request)) }
            }
            return (unsuspended, resume(&state))
        }
        if case .run = action { run() }
        if case .proceed(let number, let work) = unsuspended {
            // On the callback queue, where the transport's events arrive: none overtakes the held ones.
            callbackQueue.async {
                if let number { self.replay(self.mutableState.withLock(owner: self) { $0.releaseHeld(attempt: number) }, attempt: number) }
                work?()
            }
        }
        return self
    }

    /// Suspends the request (Alamofire's `suspend()`): it sends no attempt
    /// until ``resume()``, and what its running attempt receives waits.
    ///
    /// A request suspended before it started does not start with its first
    /// handler. One suspended while running keeps its transfer, but nothing
    /// of it reaches the request until ``resume()``: on transports that wait
    /// for each chunk to be handled (AsyncHTTPClient) the transfer stops
    /// reading; on URLSession on Linux — whose own task suspension restarts
    /// the transfer and delivers the body twice — what keeps arriving is held
    /// in memory, up to the request's body limit, or 16 MiB for a download or
    /// a stream, past which it fails with ``HTTPError/responseTooLarge(limit:)``
    /// (pause a large download with ``DownloadRequest/cancel(byProducingResumeData:)``
    /// there, or use the AsyncHTTPClient transport). An upload's body keeps
    /// going out. The session's ``Session/resourceTimeout`` keeps counting.
    /// A request suspended while running no longer keeps its session alive:
    /// released meanwhile (no request can then be resumed through it), the
    /// session fails the request with ``HTTPError/abandoned``, as Alamofire
    /// fails its requests with `sessionDeinitialized`.
    /// Does nothing once the request is cancelled or finished.
    ///
    /// - Returns: The request, for chaining.
    @discardableResult
    public func suspend() -> Self {
        // The session this releases goes after the lock: when that was its
        // last hold, its `deinit` fails this request.
        _ = mutableState.withLock(owner: self) { state -> Session? in
            guard case .suspended(let inFlight, let released) = state.suspend() else { return nil }
            if let monitor = eventMonitor {
                monitor.requestDidSuspend(self)
                if let inFlight { monitor.request(self, didSuspendTask: RequestTask(attempt: inFlight, request: state.request)) }
            }
            return released
        }
        return self
    }

    /// Whether the request is running (not suspended before it started, not over).
    var isRunning: Bool {
        mutableState.withLock(owner: self) { $0.isRunning }
    }

    /// Cancels the request.
    ///
    /// Every handler that has not run yet receives ``HTTPError/cancelled``;
    /// the running attempt is cancelled, and no adapter, retrier, retry delay
    /// or redirect starts another one. Idempotent, and does nothing once the
    /// request has finished — except to a response serializer whose failure
    /// the retriers may judge and whose handler has not run yet: should it
    /// fail, no retrier is asked and the request is not sent again (as in
    /// Alamofire, whose request is not finished until its serializers are),
    /// and while the retriers decide, the handler receives
    /// ``HTTPError/cancelled`` at once, without waiting for them.
    ///
    /// - Returns: The request, for chaining (as Alamofire's).
    @discardableResult
    public func cancel() -> Self {
        let action = mutableState.withLock(owner: self) { state in
            let action = state.cancel()
            guard let monitor = eventMonitor else { return action }
            switch action {
            case .settle:
                monitor.requestDidCancel(self)
                tellFinished(monitor)
            case .settleAndStop(let leftovers):
                monitor.requestDidCancel(self)
                // Also a task not attached yet: the transport cancels it as it is attached.
                if leftovers.inFlight {
                    let task = RequestTask(attempt: leftovers.attempt, request: state.request)
                    monitor.request(self, didCancelTask: task)
                    // As Alamofire's: the cancelled task completes, with the cancellation
                    // (the transport's own completion of it, later, is a stale attempt's).
                    monitor.request(self, didCompleteTask: task, with: .cancelled)
                }
                tellFinished(monitor)
            case .abandonRetryDecision, .none:
                break
            }
            return action
        }
        switch action {
        case .settle:
            releaseCancelled(nil)
            outcome.settle(.failure(DeferredError.cancelled), givingUp: true)
        case .settleAndStop(let leftovers):
            leftovers.task?.cancel()
            leftovers.retryDelay?.cancel()
            for handled in leftovers.handled { handled() }
            // Before the handlers run: a download's resume data is ready for them.
            releaseCancelled(leftovers.downloadFile)
            removeTemporaryFile(leftovers.temporaryFile)
            // Before the handlers run: they see it gone from the session's running requests.
            registry.remove(self)
            if let parked = leftovers.parked {
                resumeParked(parked, with: .failure(DeferredError.cancelled))
            } else {
                outcome.settle(.failure(DeferredError.cancelled), givingUp: true)
            }
        case .abandonRetryDecision(let abandon):
            abandon()
        case .none:
            break
        }
        return self
    }

    /// Answers a `Basic` authentication challenge (a 401 with
    /// `WWW-Authenticate: Basic`) from the request's origin with these
    /// credentials, once. A second 401 is delivered to the handlers.
    ///
    /// - Parameters:
    ///   - username: The user name.
    ///   - password: The password.
    ///   - persistence: Recorded in the credential, as Alamofire does; this
    ///     library never stores a credential: it answers this request's
    ///     challenges only, whatever the persistence.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func authenticate(username: String, password: String, persistence: URLCredential.Persistence = .forSession) -> Self {
        authenticate(with: URLCredential(user: username, password: password, persistence: persistence))
    }

    /// Answers a `Basic` authentication challenge from the request's origin
    /// with `credential`, once (see ``authenticate(username:password:persistence:)``).
    ///
    /// The credential is never sent to another origin, not even after a redirect.
    ///
    /// - Parameter credential: A user-and-password credential.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func authenticate(with credential: URLCredential) -> Self {
        mutableState.withLock(owner: self) { $0.credential = credential }
        return self
    }

    /// Decides this request's redirects with `redirector` instead of the
    /// session's ``Session/redirectHandler``.
    ///
    /// - Parameter redirector: `.follow`, `.doNotFollow`, or `.modify { … }`.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func redirect(using redirector: Redirector) -> Self {
        mutableState.withLock(owner: self) { $0.redirector = redirector }
        return self
    }

    /// What ``redirect(using:)`` set for this request, or `nil` (the
    /// session's ``Session/redirectHandler`` decides), as Alamofire's
    /// `redirectHandler`.
    public var redirectHandler: Redirector? {
        mutableState.withLock(owner: self) { $0.redirector }
    }

    /// Calls `closure` with the download progress each time body bytes
    /// arrive, and starts the request (unless it waits for ``resume()``).
    ///
    /// Updates are dispatched in order, so they are monotonic on a serial
    /// `queue` (a retried attempt starts again from zero); on
    /// ``Session/rootQueue``, every update has run before the response
    /// handlers start, as in Alamofire. The expected total
    /// is `nil` when unknown — also for a compressed body, whose
    /// `Content-Length` counts compressed bytes. Add it before the first
    /// response handler: a request started without one lets the transport
    /// collect the body (one event, not one per chunk), and a progress handler added to
    /// such a request receives a single update when the body is complete.
    ///
    /// - Parameters:
    ///   - queue: Where `closure` runs (default `.main`).
    ///   - closure: Receives the bytes received so far and the expected total.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func downloadProgress(
        queue: DispatchQueue = .main,
        closure: @escaping @Sendable (TransferProgress) -> Void
    ) -> Self {
        addHandler { $0.progressHandlers.append(ProgressHandler(queue: queue, handler: closure)) }
        return self
    }

    /// Adds `monitor`, told of this request's events from now on, after the
    /// session's monitors (Alamofire 5.12's `eventMonitor(_:)`). Add it
    /// before the first response handler to hear the request from its start.
    ///
    /// - Parameter monitor: The monitor; its methods run on its own ``EventMonitor/queue``.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func eventMonitor(_ monitor: any EventMonitor) -> Self {
        if let existing = requestMonitors.load(ordering: .acquiring) {
            existing.takeUnretainedValue().add(monitor)
            return self
        }
        let made = Unmanaged.passRetained(RequestMonitors(session: core.eventMonitor))
        // Another thread's first monitor may have won the race: add to its box.
        let (stored, current) = requestMonitors.compareExchange(expected: nil, desired: made, ordering: .acquiringAndReleasing)
        if !stored { made.release() }
        (current ?? made).takeUnretainedValue().add(monitor)
        return self
    }

    /// Calls `closure` with the upload progress as the request's body goes
    /// out — an upload's, or the `httpBody` of any other request (a POST's
    /// encoded parameters) — and starts the request (unless it waits for
    /// ``resume()``). A request without a body reports nothing.
    ///
    /// Updates are dispatched in order (monotonic on a serial `queue`) and
    /// end at the body's total (a retried attempt starts again from zero);
    /// on ``Session/rootQueue``, every update has run before the response
    /// handlers start.
    /// Add it before the first response handler, as ``downloadProgress(queue:closure:)``.
    ///
    /// - Parameters:
    ///   - queue: Where `closure` runs (default `.main`).
    ///   - closure: Receives the bytes sent so far and the total, if known.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func uploadProgress(
        queue: DispatchQueue = .main,
        closure: @escaping @Sendable (TransferProgress) -> Void
    ) -> Self {
        addHandler { $0.uploadProgressHandlers.append(ProgressHandler(queue: queue, handler: closure)) }
        return self
    }

    // MARK: - Handlers

    /// Keeps the request alive until every handler enqueued so far has run
    /// when something there needs it: a validator on the handler queue may
    /// hold it `unowned` (`validate { [unowned self] … }` in a
    /// `DownloadRequest` extension, as Alamofire's tests write), validation
    /// and parse events name it, a serializer's failure may retry it — and
    /// nothing else may hold it by then (a handler added before the request
    /// started, and a retryable one, hold it weakly, so that a request never
    /// started can still be released).
    func keepAliveForHandlers() {
        guard eventMonitor != nil || mayRetry || mutableState.withLock(owner: self, { $0.validatesOnHandlerQueue }) else { return }
        outcome.queue.async { withExtendedLifetime(self) {} }
    }

    /// Adds a handler with `add`, under the lock, and starts the request as
    /// a handler does, unless it waits for ``resume()``
    /// (`shouldAutomaticallyResume: false`).
    @inline(__always)
    func addHandler(_ add: (inout RequestStateMachine) -> Void) {
        let action = mutableState.withLock(owner: self) { state in
            add(&state)
            return state.resumesWithFirstHandler ? resume(&state) : .none
        }
        if case .run = action { run() }
    }

    /// The transition to running, under the lock, and its event.
    private func resume(_ state: inout RequestStateMachine) -> RequestStateMachine.ResumeAction {
        let action = state.resume()
        guard case .run = action else { return action }
        // Under the lock: a cancel() that sees the request running finds it
        // in the registry (joining after the lock, it could join after that
        // cancel() left, and stay for good).
        state.startedAt = registry.insert(self)
        if let monitor = eventMonitor {
            monitor.requestDidResume(self)
            if let urlRequest { monitor.request(self, didCreateInitialURLRequest: urlRequest) }
        }
        return action
    }

    // MARK: - What request kinds change
    //
    // Overridden by UploadRequest, DownloadRequest and DataStreamRequest, for
    // what they do outside the lock; what they keep is in the state machine's
    // `Kind`. Called outside the lock; the transport's events on its callback queue.

    /// Whether ``prepareBody(_:)`` has anything to do (uploads of a file or a form).
    var preparesBody: Bool { false }

    /// Whether the first attempt waits for one turn of the callback queue
    /// (streams: see `DataStreamRequest`), rather than going out from the
    /// thread that started the request.
    var startsOnCallbackQueue: Bool { false }

    /// `rebuilt`, made again from the request's convertible for a retry,
    /// with what the factory added to the request it built.
    func completingRebuilt(_ rebuilt: URLRequest) -> URLRequest { rebuilt }

    /// Gets the request body ready before the first attempt, then calls
    /// `done` with what every attempt sends, or the failure.
    func prepareBody(_ done: @escaping @Sendable (Result<UploadBody, HTTPError>) -> Void) {
        done(.success(.inRequest))
    }

    /// A chunk of attempt `number`'s body, for the transport that waits to
    /// hear when it was `handled` (`nil`: nobody waits). Kinds that are done
    /// with a chunk when ``consume(_:attempt:)`` returns need not override it.
    func consume(_ data: Data, attempt number: Int, handled: (@Sendable () -> Void)?) {
        consume(data, attempt: number)
        handled?()
    }

    /// A chunk of attempt `number`'s body: kept in memory, within the limit.
    func consume(_ data: Data, attempt number: Int) {
        perform(mutableState.withLock(owner: self) { state in
            if let monitor = eventMonitor, state.isInFlight(attempt: number) { monitor.request(self, didReceive: data) }
            return state.collect(data, attempt: number)
        })
    }

    /// Reports a chunk's progress, or finishes with its failure.
    func perform(_ action: RequestStateMachine.ChunkAction) {
        switch action {
        case .report(let progress, let handlers): Self.report(progress, to: handlers)
        case .fail(let error): finish(failingWith: error)
        case .none: break
        }
    }

    /// A downloading attempt's file grew (reported by the transport).
    func attempt(_ number: Int, didDownload bytes: Int64, of expected: Int64?) {}

    /// A downloading attempt's file is complete (reported by the transport).
    func attempt(_ number: Int, didFinishDownloadingTo file: URL) {
        try? FileManager.default.removeItem(at: file)
    }

    /// The final attempt's outcome as handlers see it: a download moves its
    /// `file` here (or removes it).
    func finalOutcome(_ raw: RawResponse, file: DownloadFile?) -> RawResponse { raw }

    /// A cancelled request's download file (downloads may keep it to resume).
    func releaseCancelled(_ file: DownloadFile?) {
        file?.discard()
    }

    /// Removes an upload's temporary file, if it has one (an upload removes
    /// it with its own file manager).
    func removeTemporaryFile(_ file: URL?) {
        if let file { try? FileManager.default.removeItem(at: file) }
    }

    /// The session's ``Session/maximumStreamedBodySize``.
    var streamedBodyLimit: Int {
        core.maximumStreamedBodySize
    }

    /// Limits the body this request receives to `limit` decoded bytes:
    /// the body held in memory (instead of the session's
    /// ``Session/maximumResponseBodySize``), a download's file or a stream's
    /// chunks in total (instead of ``Session/maximumStreamedBodySize``); past
    /// it the transfer stops with ``HTTPError/responseTooLarge(limit:)``.
    ///
    /// - Parameter limit: The largest body, in bytes.
    /// - Returns: The request, for chaining.
    @discardableResult
    public func maximumResponseBodySize(_ limit: Int) -> Self {
        mutableState.withLock(owner: self) { $0.maximumResponseBodySize = max(0, limit) }
        return self
    }

    /// Adds a validator (a stream judges the response head instead): it
    /// judges each completed attempt before the retriers decide (see
    /// `Request+Retrying`), and the handlers chained after it apply its
    /// verdict — each itself when it was chained before any attempt
    /// completed (no step, no derived `Deferred`: the common
    /// `.validate().response…`), otherwise through a step on the handler
    /// queue. `inline`: a check of the head alone, cheap enough for the
    /// transport's callback queue.
    func addValidation(inline: Bool = false, _ check: @escaping RawValidation) {
        guard let index = mutableState.withLock(owner: self, { $0.addValidator(PipelineValidator(check: check, inline: inline)) }) else {
            return
        }
        appendValidationStep(verdict: index) { raw, response in check(raw.request, response, raw.data) }
    }

    /// Chains the step every validator of a data request or a download is:
    /// `judge` the outcome (not one that already failed, nor one without a
    /// response) — or take the verdict the validator `verdict` gave it
    /// before the request finished — tell the monitors a new verdict, and on
    /// a failure fail the outcome later handlers see and record it as the
    /// request's ``error``.
    func appendValidationStep(
        verdict index: Int? = nil, _ judge: @escaping @Sendable (RawResponse, ResponseHead) -> ValidationResult
    ) {
        let monitor = eventMonitor
        // Neither reference is weak: a weak one would give every validated
        // request a side table. The step touches the request only for an
        // outcome with a response, and the choice is made under the lock
        // that starting takes, so it cannot go stale.
        mutableState.withLock(owner: self) { state in
            state.validatesOnHandlerQueue = true
            let applied = state.verdictsForHandlers
            if case .initialized = state.state {
                // Unowned: a request never started may still be released
                // (it then settles as abandoned, without a response); once
                // started, it settles through `settle`, whose
                // `keepAliveForHandlers()` runs behind this step (every step
                // of the tail runs on the outcome's own queue).
                state.tail = state.tail.then { [unowned self] raw in
                    let raw = raw.applyingVerdicts(of: applied)
                    guard raw.error == nil, let response = raw.head else { return raw }
                    return self.validated(raw, response, verdict: index, judge, monitor)
                }
            } else {
                // Strong: a request that started or finished may have had
                // its keep-alive run already; the step releases it once run.
                state.tail = state.tail.then { raw in
                    let raw = raw.applyingVerdicts(of: applied)
                    guard raw.error == nil, let response = raw.head else { return raw }
                    return self.validated(raw, response, verdict: index, judge, monitor)
                }
            }
        }
    }

    /// A validation step's work on an outcome with a `response`: the
    /// validator's verdict, told to `monitor`; a failure fails the outcome
    /// and is recorded as the request's ``error``.
    private func validated(
        _ raw: RawResponse, _ response: ResponseHead, verdict index: Int?,
        _ judge: @Sendable (RawResponse, ResponseHead) -> ValidationResult, _ monitor: CompositeEventMonitor?
    ) -> RawResponse {
        let result: ValidationResult
        if let index, let verdicts = raw.verdicts, index < verdicts.count {
            result = verdicts[index]
        } else {
            result = judge(raw, response)
            if let monitor { report(validation: result, of: raw, response: response, to: monitor) }
        }
        guard case .failure(let error) = result else { return raw }
        let rejected = Self.rejecting(raw, with: error)
        mutableState.withLock(owner: self) { $0.recordFailure(rejected.error) }
        return rejected
    }

    /// Tells `monitor` a validator judged `raw`: the data or download event,
    /// by the request's kind.
    func report(validation result: ValidationResult, of raw: RawResponse, response: ResponseHead, to monitor: CompositeEventMonitor) {
        if let download = self as? DownloadRequest {
            monitor.request(download, didValidateRequest: raw.request, response: response.response, fileURL: raw.fileURL, withResult: result)
        } else if let data = self as? DataRequest {
            monitor.request(data, didValidateRequest: raw.request, response: response.response, data: raw.data, withResult: result)
        }
    }

    /// `raw` failed by a validator's `error`: an ``HTTPError`` as is, any other
    /// as a custom validation failure.
    static func rejecting(_ raw: RawResponse, with error: any Error) -> RawResponse {
        var rejected = raw
        rejected.error = validationFailure(error)
        return rejected
    }

    /// A validator's `error` as handlers and retriers see it: an
    /// ``HTTPError`` as is, any other as a custom validation failure.
    static func validationFailure(_ error: any Error) -> HTTPError {
        error as? HTTPError ?? .responseValidationFailed(reason: .customValidationFailed(error: error))
    }

    /// Adds a validator of the response head and whether the body is empty
    /// (in memory here; a download judges its file).
    func addContentValidation(_ check: @escaping @Sendable (ResponseHead, _ isEmpty: Bool) -> Result<Void, any Error>) {
        addValidation(inline: true) { _, response, data in check(response, data?.isEmpty ?? true) }
    }
}
