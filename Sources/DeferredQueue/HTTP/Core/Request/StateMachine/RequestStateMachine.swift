import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything about one ``Request`` that changes: the value behind the
/// request's one lock (`Request.mutableState`), as a state machine.
///
/// ```
/// initialized ──resume()──▶ running(Attempt) ──finish()──▶ finished
///      │                        │   ▲                         │
///      │                        │   └────────reopen()─────────┘
///      └────────cancel()────────┴─────────────────────────▶ cancelled
/// ```
///
/// Each case of ``State`` carries exactly what is valid in it: the current
/// attempt while the request runs, the last request and response once it is
/// over. ``Kind`` carries what only one kind of request has (an upload's
/// body, a stream's handlers); ``Received`` what one attempt of that
/// kind received (a body, a count, a file).
///
/// Every event is a `mutating` method that checks the event is allowed in
/// the current state, changes the state, and returns an action: what the
/// caller must do once it has released the lock (start or cancel a task,
/// settle the outcome, write or remove a file, call handlers). The methods
/// do nothing else — no I/O, no user code — so they are tested alone, without
/// a transport (`RequestStateMachineTests`). Under the lock, callers only
/// enqueue: a handler on ``tail``, and the event-monitor event an action
/// implies, so that handlers keep their chaining order and monitors hear one
/// request's events in the order of its transitions.
///
/// A transition that changes the running attempt takes it out of `state`
/// (leaving `.modifying`) and puts it back, as AsyncHTTPClient's state
/// machines do: the body buffer it holds stays uniquely referenced, so
/// appending to it never copies it.
struct RequestStateMachine: Sendable {
    /// Where the request is in its life.
    enum State: Sendable {
        /// Created; nothing started.
        case initialized
        /// Resumed: its attempts are prepared, sent and decided on.
        case running(Attempt)
        /// Settled with its final outcome. The last attempt's request and
        /// response stay readable (``Request/request``, ``Request/response``).
        case finished(request: URLRequest?, response: ResponseHead?)
        /// Cancelled before it finished.
        case cancelled(request: URLRequest?, response: ResponseHead?)
        /// Never seen outside a transition: the running attempt is being
        /// changed in place.
        case modifying
    }

    private(set) var state: State = .initialized
    /// What only this kind of request has.
    var kind: Kind
    /// Where handlers are enqueued: the request's outcome, or the last
    /// `validate()` step derived from it (validation affects later handlers only).
    var tail: Deferred<RawResponse>
    /// How many times the request was retried (redirects and challenges are not retries).
    var retryCount = 0

    // Set through the request's API, in any state.

    /// Set by `redirect(using:)`; the session's when `nil`.
    var redirector: Redirector?
    /// Set by `authenticate(…)`: answers one `Basic` challenge from the request's origin.
    var credential: URLCredential?
    /// Set by `maximumResponseBodySize(_:)`; the session's when `nil`.
    var maximumResponseBodySize: Int?
    /// Download progress handlers; released when the request ends.
    var progressHandlers: [ProgressHandler] = []
    /// What the handler queue targets once the request settles (see ``HandlerLane``).
    var handlerLane = HandlerLane.unchosen
    /// Whether the first handler starts the request (`shouldAutomaticallyResume`).
    var resumesWithFirstHandler = true
    /// A validator runs on the handler queue, after the request finished:
    /// the request is kept alive until it ran (`keepAliveForHandlers`).
    var validatesOnHandlerQueue = false
    /// An attempt completed and the validators chained by then judged it:
    /// a validator chained from now on is a step on the handler queue.
    var validatorsJudged = false
    /// A stream handed a chunk to its handlers: its failures are final from
    /// now on (`Request.retryOrFinish`), since a retried attempt's body would
    /// follow the chunks they already hold. Inline, beside the other flags.
    var streamChunkHandedOver = false
    /// Handlers whose serializer's failure may retry the request that have
    /// not passed yet (Alamofire's request is not finished until its
    /// serializers are): a `cancel()` meanwhile stops their retries. Inline,
    /// in the padding after the flags: every request of a session that may
    /// retry counts, where a rare field would allocate its box for each.
    var retryableHandlers: UInt32 = 0
    /// The ``AuthenticationInterceptor`` whose refresh started the request
    /// (read from the starting task when it started).
    var refreshingInterceptor: ObjectIdentifier?
    /// Every `URLRequest` made for the request (Alamofire's `requests`).
    var created = CreatedRequests()
    /// Every attempt before the latest (Alamofire's `tasks` but the last).
    private var earlierTasks: [RequestTask] = []
    /// Interceptors added with `interceptor(_:)`, `adapt(using:)` and
    /// `retry(using:)`, after the one the request was made with.
    var addedInterceptors: [any RequestInterceptor] = []
    /// A data request's validators, in the order chained: each completed
    /// attempt is judged by those chained so far before the retriers decide
    /// (see `Request+Retrying`).
    var validators: [PipelineValidator] = []
    /// How many of `validators`, from the first, have no step on the handler
    /// queue: those chained before any attempt completed, before any step.
    /// Every attempt's judging includes them, so each handler applies their
    /// verdicts itself (`RawResponse.applyingVerdicts(of:)`), as many as
    /// were chained before it.
    var verdictsForHandlers = 0
    /// The session, held strongly until the request ends: a request that
    /// runs or waits to start keeps its session alive, a finished one does
    /// not, nor one suspended mid-run (handed out with what the request
    /// leaves, or by `suspend()`, to be released after the lock).
    var owner: Session?
    /// Set by `suspend()`, cleared by `resume()` (see `RequestStateMachine+Suspension`).
    var isSuspended = false
    /// When the request started running (uptime nanoseconds): the session's
    /// deadline counts from it, also for a reopened request.
    var startedAt: UInt64 = 0
    /// The number of the last attempt of a request that finished: a reopened
    /// request numbers its attempts on from it, so stale events stay stale.
    private var lastAttemptNumber = 0

    // Resumable downloads (see RequestStateMachine+Resume).

    /// The cancellation asked for resume data.
    var cancelProducesResumeData = false
    /// What most requests never set (see ``RareFields``): `nil` until one
    /// is. Read and written only through the accessors beside `RareFields`.
    var rare: RareBox?

    init(kind: Kind, tail: Deferred<RawResponse>) {
        self.kind = kind
        self.tail = tail
    }

    /// A request that failed before it could start: finished from the start.
    init(failedSending request: URLRequest?, tail: Deferred<RawResponse>) {
        self.init(kind: .data, tail: tail)
        state = .finished(request: request, response: nil)
    }

    /// The `URLRequest`s made for a request, in order: each attempt's before
    /// its adapters, then the adapted one when adapters ran. The first two
    /// are stored inline, so a request that is sent once allocates nothing.
    struct CreatedRequests {
        private var first: URLRequest?
        private var second: URLRequest?
        private var later: [URLRequest] = []

        mutating func append(_ request: URLRequest) {
            if first == nil { first = request } else if second == nil { second = request } else { later.append(request) }
        }

        var all: [URLRequest] { [first, second].compactMap { $0 } + later }
    }

    /// Records `error` as the request's failure unless one is known.
    mutating func recordFailure(_ error: HTTPError?) {
        if failure == nil { failure = error }
    }

    /// Chains a data request's validator. Returns `nil` when the handlers
    /// chained after it apply its verdict themselves (``verdictsForHandlers``),
    /// or its index when it needs a step on the handler queue: it was
    /// chained after an attempt was judged, or after another step.
    mutating func addValidator(_ validator: PipelineValidator) -> Int? {
        validators.append(validator)
        guard !validatorsJudged, verdictsForHandlers == validators.count - 1 else { return validators.count - 1 }
        verdictsForHandlers += 1
        return nil
    }

    // MARK: - Queries

    /// The request's ``Request/id``, made on first use.
    mutating func id() -> UUID {
        if let identifier { return identifier }
        let made = UUID()
        identifier = made
        return made
    }

    /// The public face of ``state``.
    var requestState: RequestState {
        switch state {
        case .initialized: return isSuspended ? .suspended : .initialized
        case .running: return isSuspended ? .suspended : .resumed
        case .finished: return .finished
        case .cancelled: return .cancelled
        case .modifying: preconditionFailure("state observed mid-transition")
        }
    }

    /// Whether the request was started (the session's registry then holds
    /// it until it settles), or a handler added now starts it (`resume()`
    /// follows adding it).
    var startsWithHandlerOrStarted: Bool {
        guard case .initialized = state else { return true }
        return resumesWithFirstHandler && !isSuspended
    }

    var isRunning: Bool {
        if case .running = state { return true }
        return false
    }

    /// The request as the latest attempt sent it.
    var request: URLRequest? {
        switch state {
        case .initialized: return nil
        case .running(let attempt): return attempt.request
        case .finished(let request, _), .cancelled(let request, _): return request
        case .modifying: preconditionFailure("state observed mid-transition")
        }
    }

    /// The latest attempt, once one began (``Request/task``).
    var task: RequestTask? {
        switch state {
        case .initialized: return nil
        case .running(let attempt): return attempt.number > 0 ? RequestTask(attempt: attempt.number, request: attempt.request) : nil
        case .finished(let request, _), .cancelled(let request, _):
            return lastAttemptNumber > 0 ? RequestTask(attempt: lastAttemptNumber, request: request) : nil
        case .modifying: preconditionFailure("state observed mid-transition")
        }
    }

    /// Every attempt that began, in order (``Request/tasks``).
    var tasks: [RequestTask] {
        guard let task else { return earlierTasks }
        return earlierTasks + [task]
    }

    /// The latest attempt is over and another begins: it joins ``tasks``.
    mutating func rememberTask(of attempt: Attempt) {
        guard attempt.number > 0, let request = attempt.request else { return }
        earlierTasks.append(RequestTask(attempt: attempt.number, request: request))
    }

    /// The latest attempt's response head.
    var response: ResponseHead? {
        switch state {
        case .initialized: return nil
        case .running(let attempt): return attempt.response
        case .finished(_, let response), .cancelled(_, let response): return response
        case .modifying: preconditionFailure("state observed mid-transition")
        }
    }

    /// The running attempt's download file, where it is (the tests look for it).
    var download: File? {
        guard case .running(let attempt) = state, case .file(let file) = attempt.received else { return nil }
        return file
    }

    /// The most bytes the request keeps in memory: its own limit, else the session's.
    func bodyLimit(session sessionLimit: Int) -> Int {
        maximumResponseBodySize ?? sessionLimit
    }

    // MARK: - Changing the running attempt in place

    /// Runs `body` on the running attempt, changed in place; `nil` when the
    /// request is not running.
    @discardableResult
    mutating func updateAttempt<Result>(_ body: (inout Attempt) -> Result) -> Result? {
        guard case .running(var attempt) = state else { return nil }
        // The only reference left is `attempt`'s: no copy on write below.
        state = .modifying
        defer { state = .running(attempt) }
        return body(&attempt)
    }

    /// Whether attempt `number`'s transfer is the running one, still in flight.
    func isInFlight(attempt number: Int) -> Bool {
        guard case .running(let attempt) = state else { return false }
        return attempt.isInFlight(number)
    }

    /// Runs `body` on attempt `number`, changed in place, while its transfer
    /// is in flight; `nil` for an event of an attempt that is over (cancelled,
    /// completed, superseded) or of a request that stopped running.
    @discardableResult
    mutating func updateAttempt<Result>(inFlight number: Int, _ body: (inout Attempt) -> Result) -> Result? {
        guard case .running(var attempt) = state, attempt.isInFlight(number) else { return nil }
        state = .modifying
        defer { state = .running(attempt) }
        return body(&attempt)
    }

    // MARK: - Lifecycle

    enum ResumeAction: Sendable {
        /// Start running: join the session's registry and prepare the first
        /// attempt (monitors hear `requestDidResume`).
        case run
        /// Already running or over.
        case none
    }

    /// initialized → running.
    mutating func resume() -> ResumeAction {
        guard case .initialized = state, !isSuspended else { return .none }
        state = .running(Attempt())
        return .run
    }

    /// What a request holds when it ends, for the caller to release after the lock.
    struct Leftovers: Sendable {
        /// The attempt in flight, to cancel.
        var task: (any HTTPTransportTask)?
        /// The delay before a retry, to cancel.
        var retryDelay: OneShotTimer?
        /// The last attempt's download file: the download's result, or to remove.
        var downloadFile: DownloadFile?
        /// An upload's form encoded to a file, to remove.
        var temporaryFile: URL?
        /// The handler parked on a reopened request: it gets the outcome
        /// instead of the request's (already settled) outcome.
        var parked: ParkedHandler?
        /// The session the request kept alive while it ran.
        var owner: Session?
        /// The number of the attempt that ended.
        var attempt = 0
        /// Whether that attempt was in flight (sent, its task attached or
        /// about to be): a cancel stops its task.
        var inFlight = false
        /// The transport waits to hear these held chunks were handled.
        var handled: [@Sendable () -> Void] = []
        /// The handler queue's lane when the request finished.
        var lane = HandlerLane.shared
        /// The progress handlers, download and upload: those on the
        /// session's root queue have run before any response handler.
        var progressHandlers: [ProgressHandler] = []
        var uploadProgressHandlers: [ProgressHandler] = []
    }

    enum FinishAction: Sendable {
        /// Cancel the leftover task, settle the outcome, release the rest and
        /// leave the session's registry (monitors hear `requestDidFinish`).
        case settle(Leftovers)
        /// Not running: already over, or never started.
        case none
    }

    /// running → finished.
    mutating func finish() -> FinishAction {
        guard case .running(let attempt) = state else { return .none }
        state = .finished(request: attempt.request, response: attempt.response)
        lastAttemptNumber = attempt.number
        var leftovers = end(attempt)
        leftovers.lane = handlerLane
        return .settle(leftovers)
    }

    /// The outcome of a reopened request, for the handler parked on it.
    typealias ParkedHandler = @Sendable (Result<RawResponse, any Error>) -> Void

    /// finished → running again: a response serializer failed and the
    /// retriers decided to retry. `handler` is parked until the retried
    /// request ends; the failure it finished with is forgotten, and the
    /// retry counted; the running request keeps `session` alive again.
    /// `false` (nothing changes) unless the request finished, nothing
    /// else is parked, and no `cancel()` came while a handler whose failure
    /// may retry the request had not passed.
    mutating func reopen(parking handler: @escaping ParkedHandler, session: Session? = nil) -> Bool {
        guard case .finished(let request, _) = state, parked == nil, !cancelledRetryDecision else { return false }
        if lastAttemptNumber > 0 { earlierTasks.append(RequestTask(attempt: lastAttemptNumber, request: request)) }
        owner = session
        let attempt = Attempt()
        attempt.number = lastAttemptNumber
        state = .running(attempt)
        parked = handler
        retryDecisionWait = nil
        failure = nil
        retryCount += 1
        return true
    }

    enum CancelAction: Sendable {
        /// Cancelled before it ran: settle the outcome as cancelled (and
        /// release, after the lock, the session the request kept alive).
        case settle(releasing: Session?)
        /// Cancelled while running: cancel the leftover task, settle the
        /// outcome as cancelled, release the rest and leave the registry.
        case settleAndStop(Leftovers)
        /// Over, but a response serializer's failure waits for the retriers:
        /// end that wait (its handler receives the cancellation). (A handler
        /// whose serializer has yet to fail is told when it asks.)
        case abandonRetryDecision(@Sendable () -> Void)
        /// Already over.
        case none
    }

    /// initialized or running → cancelled (monitors hear `requestDidCancel`,
    /// then `requestDidFinish`, unless the action is `.none`).
    mutating func cancel() -> CancelAction {
        switch state {
        case .initialized:
            state = .cancelled(request: nil, response: nil)
            progressHandlers = []
            uploadProgressHandlers = []
            isSuspended = false
            defer { owner = nil }
            return .settle(releasing: owner)
        case .running(let attempt):
            state = .cancelled(request: attempt.request, response: attempt.response)
            lastAttemptNumber = attempt.number
            return .settleAndStop(end(attempt))
        case .finished:
            if let wait = retryDecisionWait {
                retryDecisionWait = nil
                cancelledRetryDecision = true
                return .abandonRetryDecision(wait.abandon)
            }
            // A serializer that may yet ask the retriers asks none.
            if retryableHandlers > 0 { cancelledRetryDecision = true }
            return .none
        case .cancelled:
            return .none
        case .modifying:
            preconditionFailure("state observed mid-transition")
        }
    }

    /// Takes what the ended `attempt` and the request hold.
    private mutating func end(_ attempt: Attempt) -> Leftovers {
        var leftovers = Leftovers()
        (leftovers.progressHandlers, leftovers.uploadProgressHandlers) = (progressHandlers, uploadProgressHandlers)
        progressHandlers = []
        uploadProgressHandlers = []
        isSuspended = false
        waitingForResume = nil
        leftovers.attempt = attempt.number
        if let delay = retryDelay {
            leftovers.retryDelay = delay
            retryDelay = nil
        }
        for case .chunk(_, let handled?) in attempt.held ?? [] { leftovers.handled.append(handled) }
        attempt.held = nil
        if case .sending(let task) = attempt.phase { (leftovers.task, leftovers.inFlight) = (task, attempt.number > 0) }
        // A file being written is the writer's to remove: it finds the attempt over when it returns it.
        if case .file(.ready(let file)) = attempt.received { leftovers.downloadFile = file }
        leftovers.temporaryFile = takeTemporaryFile()
        leftovers.parked = parked
        parked = nil
        leftovers.owner = owner
        owner = nil
        return leftovers
    }
}
