/// Where a ``Request`` is in its life.
///
/// ```
/// initialized ──resume()──▶ resumed ──completes──▶ finished
///      │  ▲                    │  ▲
///  suspend() resume()   suspend() resume()
///      ▼  │                    ▼  │
///     suspended              suspended
///
/// any of these ──cancel()──▶ cancelled
/// ```
///
/// `finished` and `cancelled` are final: a request never leaves them.
public enum RequestState: Sendable, Hashable, CustomStringConvertible {
    /// Created; no attempt has started (no handler added, ``Request/resume()`` not called).
    case initialized
    /// Running: an attempt is being adapted, sent, redirected or retried.
    case resumed
    /// Suspended by ``Request/suspend()``, before it started or while it
    /// ran: it goes on only with ``Request/resume()``.
    case suspended
    /// Cancelled before it finished; every handler receives ``HTTPError/cancelled``.
    case cancelled
    /// Finished with a final outcome (a response, or an error).
    case finished

    /// Whether the state is final.
    public var isFinal: Bool {
        self == .cancelled || self == .finished
    }

    /// `"initialized"`, `"resumed"`, `"suspended"`, `"cancelled"` or `"finished"`.
    public var description: String {
        switch self {
        case .initialized: return "initialized"
        case .resumed: return "resumed"
        case .suspended: return "suspended"
        case .cancelled: return "cancelled"
        case .finished: return "finished"
        }
    }
}

extension Request {
    /// Whether the request is ``RequestState/initialized`` (Alamofire's spelling).
    public var isInitialized: Bool { state == .initialized }
    /// Whether the request is ``RequestState/resumed``.
    public var isResumed: Bool { state == .resumed }
    /// Whether the request is ``RequestState/suspended``.
    public var isSuspended: Bool { state == .suspended }
    /// Whether the request is ``RequestState/cancelled``.
    public var isCancelled: Bool { state == .cancelled }
    /// Whether the request is ``RequestState/finished``.
    public var isFinished: Bool { state == .finished }
}
