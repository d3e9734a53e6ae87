import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The transitions of one attempt: prepared, begun, attached to its task,
// its head received, completed; then followed by a redirect, a challenge
// answered, or a retry.

extension RequestStateMachine {
    enum BodyPreparedAction: Sendable {
        /// Prepare the first attempt.
        case prepareAttempt
        /// The request ended while its body was encoded: remove the file.
        case removeTemporaryFile(URL)
        /// The request ended while its body was prepared.
        case none
    }

    /// An upload's body is ready for its attempts.
    mutating func bodyPrepared(_ body: UploadBody) -> BodyPreparedAction {
        guard isRunning else {
            if case .temporaryFile(let file) = body { return .removeTemporaryFile(file) }
            return .none
        }
        updateUpload { upload in
            upload.body = body
            upload.uploadable = UploadRequest.Uploadable(body)
        }
        return .prepareAttempt
    }

    enum BeginAttemptAction: Sendable {
        /// Hand attempt `number` to the transport. `discarding`: the previous
        /// attempt's download file, to remove.
        case start(
            number: Int, bodyFile: URL?, collectsBody: Bool, downloadsToFile: Bool, bodyLimit: Int,
            discarding: DownloadFile?
        )
        /// The request stopped running meanwhile (cancelled, timed out).
        case none
    }

    /// Begins the next attempt, sending `request` (to which an upload's
    /// encoded form is added), built from `base`.
    mutating func beginAttempt(
        sending request: inout URLRequest, base: URLRequest, adapted: URLRequest? = nil, sessionBodyLimit: Int
    ) -> BeginAttemptAction {
        guard case .running(let current) = state else { return .none }
        rememberTask(of: current)
        created.append(base)
        if let adapted { created.append(adapted) }
        var bodyFile: URL?
        if case .upload(let upload) = kind {
            switch upload.body {
            case .inRequest: break
            case .file(let file), .temporaryFile(let file): bodyFile = file
            case .encoded(let data): request.httpBody = data
            }
        }
        let limit = bodyLimit(session: sessionBodyLimit)
        let received: Received
        switch kind {
        case .data, .upload: received = .body(HTTPBodyCollector(limit: limit))
        case .download: received = .file(.none)
        case .stream: received = .streamed(0)
        }
        // A collecting transport reports neither progress.
        let collectsBody = kind.keepsBodyInMemory && progressHandlers.isEmpty && uploadProgressHandlers.isEmpty
        // While a resumed download's partial file waits, ask for the rest of
        // the entity; the session writes it (after the partial file's bytes).
        for (name, value) in resumeHeaders { request.setValue(value, forHTTPHeaderField: name) }
        let downloadsToFile = if case .download = kind { resumePoint == nil } else { false }
        let holdLimit = kind.keepsBodyInMemory ? limit : Self.suspendedHoldLimit
        return updateAttempt { attempt -> BeginAttemptAction in
            var discarding: DownloadFile?
            if case .file(.ready(let file)) = attempt.received { discarding = file }
            attempt.number += 1
            attempt.held = nil
            (attempt.awaitsDisposition, attempt.heldBytes, attempt.continues) = (false, 0, false)
            attempt.holdLimit = holdLimit
            attempt.rejection = nil
            attempt.phase = .sending(task: nil)
            attempt.request = request
            attempt.base = base
            attempt.response = nil
            attempt.received = received
            return .start(
                number: attempt.number, bodyFile: bodyFile, collectsBody: collectsBody,
                downloadsToFile: downloadsToFile, bodyLimit: limit, discarding: discarding
            )
        } ?? .none
    }

    enum AttachAction: Sendable {
        /// Keep the task: it runs the current attempt.
        case none
        /// The attempt is over (the request was cancelled, or a later attempt
        /// began, while the transport created the task): cancel it.
        case cancelTask(any HTTPTransportTask)
    }

    /// The transport created the task of attempt `number`.
    mutating func attach(_ task: any HTTPTransportTask, toAttempt number: Int) -> AttachAction {
        let attached = updateAttempt { attempt -> AttachAction in
            guard attempt.number == number else { return .cancelTask(task) }
            // Idle: the attempt completed before its task was attached; there is nothing to cancel.
            if case .sending = attempt.phase { attempt.phase = .sending(task: task) }
            // Refused before its task was attached: stop it now.
            return attempt.rejection == nil ? .none : .cancelTask(task)
        }
        return attached ?? .cancelTask(task)
    }

    enum ReceiveHeadAction: Sendable {
        /// Tell monitors the response arrived.
        case report
        /// Tell monitors; the request goes on from this head (a redirect it
        /// follows, a challenge it answers): not the final one.
        case reportContinuing
        /// Tell monitors, then judge the head with a stream's validators.
        case reportAndValidate([Request.RawValidation], request: URLRequest?)
        /// A stale attempt's head.
        case ignore
    }

    /// What a stream needs to know on a head whether its request goes on
    /// from it (``Attempt/continues``).
    struct HeadContext {
        /// The attempt as sent, and before adapters and session defaults.
        let sent: URLRequest?, base: URLRequest?
        let redirector: Redirector?
        /// The credential, if it has not been sent yet.
        let credential: URLCredential?
    }

    /// Attempt `number`'s response head arrived. `continues`: whether the
    /// request goes on from a redirect or challenge head (asked for a
    /// stream, and for a request whose `onHTTPResponse` handler sees only final heads).
    mutating func receiveHead(
        _ response: ResponseHead, attempt number: Int, continues: (HeadContext) -> Bool
    ) -> ReceiveHeadAction {
        let stream: Stream? = if case .stream(let stream) = kind { stream } else { nil }
        guard stream != nil || httpResponseHandler != nil else {
            return updateAttempt(inFlight: number, { $0.response = response }) == nil ? .ignore : .report
        }
        let redirector = redirector, credential = credential
        let goesOn = updateAttempt(inFlight: number) { attempt -> Bool in
            attempt.response = response
            guard (300..<400).contains(response.statusCode) || response.statusCode == 401 else { return false }
            attempt.continues = continues(HeadContext(
                sent: attempt.request, base: attempt.base, redirector: redirector,
                credential: attempt.credentialSent ? nil : credential
            ))
            return attempt.continues
        }
        guard let goesOn else { return .ignore }
        if goesOn { return .reportContinuing }
        guard let stream, !stream.headValidators.isEmpty else { return .report }
        return .reportAndValidate(stream.headValidators, request: request)
    }

    /// A stream's validators and the request they judge, when its final
    /// head is one they were not asked about as it arrived (``Attempt/continues``).
    func deferredHeadValidation() -> (validators: [Request.RawValidation], request: URLRequest?)? {
        guard case .stream(let stream) = kind, !stream.headValidators.isEmpty,
              case .running(let attempt) = state, attempt.continues
        else { return nil }
        return (stream.headValidators, attempt.request)
    }

    enum CompleteAttemptAction: Sendable {
        /// Decide what follows: a redirect, a challenge answered, a retry, or the end.
        case decide(CompletedAttempt)
        /// A stale attempt's completion.
        case ignore
    }

    /// Attempt `number` completed; `body` is the body the transport collected, if it did.
    mutating func completeAttempt(_ number: Int, body: Data?) -> CompleteAttemptAction {
        validatorsJudged = true
        let redirector = redirector, credential = credential
        let progressHandlers = progressHandlers, maximumResponseBodySize = maximumResponseBodySize, validators = validators
        let isStream = if case .stream = kind { true } else { false }
        return updateAttempt(inFlight: number) { attempt -> CompleteAttemptAction in
            attempt.phase = .idle
            var collected = Data()
            if body == nil, case .body(let collector) = attempt.received {
                attempt.received = .nothing
                collected = collector.body
            }
            // A stream's head judged final as it arrived was streamed as the response:
            // a credential or redirector set since does not make the request go on from it.
            let final = isStream && !attempt.continues
            return .decide(CompletedAttempt(
                request: attempt.request, base: attempt.base, response: attempt.response, body: body ?? collected,
                redirector: final ? .doNotFollow : redirector, credential: final || attempt.credentialSent ? nil : credential,
                progressHandlers: progressHandlers, maximumResponseBodySize: maximumResponseBodySize, validators: validators
            ))
        } ?? .ignore
    }

    enum NextAttemptAction: Sendable {
        /// Prepare the next attempt.
        case prepareAttempt
        /// Too many redirects: finish with the error.
        case fail(HTTPError)
        /// The request stopped running meanwhile.
        case none
    }

    /// The completed attempt's redirect is followed.
    mutating func followRedirect(limit: Int) -> NextAttemptAction {
        let exceeded = updateAttempt { attempt -> Bool in
            attempt.redirectCount += 1
            return attempt.redirectCount > limit
        }
        switch exceeded {
        case .none: return .none
        case .some(true): return .fail(.sessionTaskFailed(URLError(.httpTooManyRedirects)))
        case .some(false): return .prepareAttempt
        }
    }

    /// The completed attempt's `Basic` challenge is answered with the credential.
    mutating func answerChallenge() -> NextAttemptAction {
        updateAttempt { attempt -> NextAttemptAction in
            attempt.credentialSent = true
            return .prepareAttempt
        } ?? .none
    }

    enum RetryAction: Sendable {
        /// Prepare the request anew after the delay (monitors hear `requestIsRetrying`).
        case scheduleRetry
        /// The request stopped running meanwhile.
        case none
    }

    /// The retriers decided to retry: the redirect and credential
    /// bookkeeping starts again.
    mutating func retry() -> RetryAction {
        guard isRunning else { return .none }
        retryCount += 1
        updateAttempt { attempt in
            attempt.redirectCount = 0
            attempt.credentialSent = false
        }
        return .scheduleRetry
    }
}
