import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RequestStateMachine {
    /// The running request's current attempt: what it sent, what it
    /// received, and the bookkeeping that spans attempts until a retry.
    ///
    /// Before the first attempt begins (the body is prepared, adapters run)
    /// its `number` is 0 and nothing was sent.
    ///
    /// A class, changed in place: as a value, every read of the request's
    /// state copied its two `URLRequest`s (a resilient type, copied through
    /// its value witnesses) and the rest, several times per request.
    // @unchecked: its mutable state is read and written only inside the
    // state machine, that is under the request's one lock (`Request.mutableState`).
    final class Attempt: @unchecked Sendable {
        /// Events of other attempts are stale and ignored.
        var number = 0
        var phase = Phase.idle
        /// The request as the attempt sent it.
        var request: URLRequest?
        /// The attempt's request before adapters and session defaults: what
        /// redirects and authentication build the next attempt from.
        var base: URLRequest?
        /// The response head, once it arrived.
        var response: ResponseHead?
        var received = Received.nothing
        /// Redirects followed since the request started or was last retried.
        var redirectCount = 0
        /// Whether the credential was sent since the request started or was
        /// last retried: it answers one challenge.
        var credentialSent = false
        /// While an `onHTTPResponse` handler decides on the head: the body's
        /// events that arrived meanwhile, in order (`nil`: nothing to wait for).
        var held: [HeldEvent]?
        /// Whether an `onHTTPResponse` handler decides on the head (its body is held meanwhile).
        var awaitsDisposition = false
        /// The head is a redirect the request follows or a challenge it
        /// answers (asked for streams and requests with an `onHTTPResponse`
        /// handler): the request goes on, so the head's body is not a
        /// stream's, and neither a stream's validators nor the handler see it.
        var continues = false
        /// The bytes of held chunks the transport did not wait for.
        var heldBytes = 0
        /// The most such bytes held (the body limit of a request that keeps
        /// its body in memory; `suspendedHoldLimit` for the others).
        var holdLimit = RequestStateMachine.suspendedHoldLimit
        /// A stream's validators refused the head: the attempt is being
        /// stopped, and ends with this error (its chunks are dropped).
        var rejection: HTTPError? {
            get { rejected?.error }
            set { rejected = newValue.map(Rejected.init) }
        }
        /// `rejection`, out of line: an `HTTPError` inline would take a
        /// third of every running request's attempt, and few are rejected.
        private var rejected: Rejected?

        private final class Rejected: Sendable {
            let error: HTTPError

            init(_ error: HTTPError) {
                self.error = error
            }
        }

        /// The progress once `completed` body bytes arrived, against the
        /// length the response announces.
        func progress(completed: Int64) -> TransferProgress {
            // A resumed download's 206 counts toward the whole entity.
            let whole = response.flatMap { $0.statusCode == 206 ? $0.value(forHTTPHeaderField: "Content-Range") : nil }
                .flatMap(ContentRange.init)?.complete
            return TransferProgress(completed: completed, expected: whole ?? response.flatMap(Request.decodedLength(of:)))
        }

        /// Whether attempt `number`'s transfer is this one, and still in flight.
        func isInFlight(_ number: Int) -> Bool {
            guard self.number == number, case .sending = phase else { return false }
            return true
        }
    }

    enum Phase: Sendable {
        /// No transfer in flight: the attempt is being prepared, or the last
        /// one completed and the next step is being decided.
        case idle
        /// Handed to the transport; `task` once `startAttempt` returned it.
        case sending(task: (any HTTPTransportTask)?)
    }

    /// What an attempt received of the body, by kind of request.
    enum Received: Sendable {
        /// Nothing kept: no attempt began yet, or the completed attempt's body
        /// was handed over (also while a transition changes it in place).
        case nothing
        /// Data and uploads: the body so far, when the session collects it
        /// (the transport collects it itself when no progress handler wants chunks).
        case body(HTTPBodyCollector)
        /// Streams: how many bytes arrived (handed over, or dropped as the
        /// body of a head the request goes on from), against the limit.
        case streamed(Int64)
        /// Downloads: the file the body goes to.
        case file(File)
    }

    /// A download attempt's file.
    enum File: Sendable {
        /// No chunk arrived yet.
        case none
        /// Open, between chunks (or written by the transport).
        case ready(DownloadFile)
        /// Handed to the transport's callback queue, which writes a chunk
        /// outside the lock and hands it back; `nil` until its first write
        /// created it.
        case writing(URL?)

        /// Where the file is, once it exists.
        var url: URL? {
            switch self {
            case .none: return nil
            case .ready(let file): return file.url
            case .writing(let url): return url
            }
        }
    }
}
