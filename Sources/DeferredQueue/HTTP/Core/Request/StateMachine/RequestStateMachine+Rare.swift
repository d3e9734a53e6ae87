import Foundation

extension RequestStateMachine {
    /// The fields most requests never set, kept out of line: every request
    /// holds its state machine inline for as long as it runs, and inline
    /// these would take half of it. Allocated by the first change that sets
    /// one, copied before a change while shared, so the state machine stays
    /// a value.
    struct RareFields: Sendable {
        /// The request's failure (Alamofire's `Request.error`): the one it
        /// finished with, or the first a validator returned; the first one wins.
        var failure: HTTPError?
        /// ``Request/id``, made when first read: most requests are never asked.
        var identifier: UUID?
        /// Set by `onHTTPResponse(on:perform:)`: told of each final response head.
        var httpResponseHandler: HTTPResponseHandler?
        /// The one parked handler: a response serializer whose failure reopened
        /// the finished request for a retry. The retried request's outcome goes
        /// to it instead of the (once-settled) outcome; the handler queue waits
        /// meanwhile. `nil` when nothing is parked.
        var parked: ParkedHandler?
        /// The wait of a response serializer whose failure the retriers
        /// are deciding on (the request finished): `cancel()` ends it.
        var retryDecisionWait: RetryDecisionWait?
        /// `cancel()` came while a handler whose failure may retry the
        /// request had not passed: until every such handler has passed, no
        /// retrier is asked, and one that answers `retry` all the same does
        /// not reopen the request.
        var cancelledRetryDecision: Bool?
        /// The delay before a retry's attempt is prepared: held here, not
        /// by the deadline, so that a request that ends meanwhile (a
        /// cancel, the session's deadline) is released at once.
        var retryDelay: OneShotTimer?
        /// The attempt a suspension stopped before it was sent, for `resume()`.
        var waitingForResume: (@Sendable () -> Void)?
        /// A resumed download's partial file and offset, until an attempt takes
        /// the file over (or a response makes it useless).
        var resumePoint: ResumePoint?
        /// What a failed or cancelled download left to resume from; set as it ends.
        var resumeData: Data?
        /// `cancel(byProducingResumeData:)`'s completion, until the resume data is known.
        var resumeDataCompletion: (@Sendable (Data?) -> Void)?
        /// Told of the request body's progress, for as long as the request runs.
        var uploadProgressHandlers: [ProgressHandler]?
        /// Set by `onURLSessionTaskCreation(on:perform:)`: told of each attempt's task.
        var taskCreationHandler: TaskCreationHandler?
    }

    // @unchecked: `fields` is read and written only by the state machine,
    // that is under the request's one lock (`Request.mutableState`), and
    // copied before a change whenever two state machines share the box.
    final class RareBox: @unchecked Sendable {
        var fields: RareFields

        init(_ fields: RareFields) {
            self.fields = fields
        }
    }

    /// Sets one rare field, allocating the box on the first field set (and
    /// nothing for clearing one never set), copying it first while shared.
    private mutating func setRare<Field>(_ field: WritableKeyPath<RareFields, Field?>, _ value: Field?) {
        if rare == nil {
            guard value != nil else { return }
            rare = RareBox(RareFields())
        } else if !isKnownUniquelyReferenced(&rare) {
            rare = rare.map { RareBox($0.fields) }
        }
        rare?.fields[keyPath: field] = value
    }

    var failure: HTTPError? {
        get { rare?.fields.failure }
        set { setRare(\.failure, newValue) }
    }

    var identifier: UUID? {
        get { rare?.fields.identifier }
        set { setRare(\.identifier, newValue) }
    }

    var httpResponseHandler: HTTPResponseHandler? {
        get { rare?.fields.httpResponseHandler }
        set { setRare(\.httpResponseHandler, newValue) }
    }

    var parked: ParkedHandler? {
        get { rare?.fields.parked }
        set { setRare(\.parked, newValue) }
    }

    var retryDecisionWait: RetryDecisionWait? {
        get { rare?.fields.retryDecisionWait }
        set { setRare(\.retryDecisionWait, newValue) }
    }

    var cancelledRetryDecision: Bool {
        get { rare?.fields.cancelledRetryDecision ?? false }
        set { setRare(\.cancelledRetryDecision, newValue ? true : nil) }
    }

    var retryDelay: OneShotTimer? {
        get { rare?.fields.retryDelay }
        set { setRare(\.retryDelay, newValue) }
    }

    var waitingForResume: (@Sendable () -> Void)? {
        get { rare?.fields.waitingForResume }
        set { setRare(\.waitingForResume, newValue) }
    }

    var resumePoint: ResumePoint? {
        get { rare?.fields.resumePoint }
        set { setRare(\.resumePoint, newValue) }
    }

    var resumeData: Data? {
        get { rare?.fields.resumeData }
        set { setRare(\.resumeData, newValue) }
    }

    var resumeDataCompletion: (@Sendable (Data?) -> Void)? {
        get { rare?.fields.resumeDataCompletion }
        set { setRare(\.resumeDataCompletion, newValue) }
    }

    /// Takes `cancel(byProducingResumeData:)`'s completion, to call once.
    mutating func takeResumeDataCompletion() -> (@Sendable (Data?) -> Void)? {
        defer { resumeDataCompletion = nil }
        return resumeDataCompletion
    }

    var taskCreationHandler: TaskCreationHandler? {
        get { rare?.fields.taskCreationHandler }
        set { setRare(\.taskCreationHandler, newValue) }
    }

    var uploadProgressHandlers: [ProgressHandler] {
        get { rare?.fields.uploadProgressHandlers ?? [] }
        set { setRare(\.uploadProgressHandlers, newValue.isEmpty ? nil : newValue) }
    }
}
