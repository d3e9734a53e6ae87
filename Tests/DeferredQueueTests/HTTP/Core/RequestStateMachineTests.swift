import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

/// The request's state machine alone: no transport, no threads. Each test
/// drives transitions and checks the action the caller would perform.
@Suite("RequestStateMachine: lifecycle and attempts")
struct RequestStateMachineTests {
    @Test func resumeStartsRunningOnce() {
        var machine = RequestStateMachine.make()
        #expect(machine.requestState == .initialized)
        guard case .run = machine.resume() else { Issue.record("the first resume runs the request"); return }
        #expect(machine.requestState == .resumed)
        guard case .none = machine.resume() else { Issue.record("a second resume does nothing"); return }
    }

    @Test func anAttemptBeginsOnlyWhileRunning() {
        var machine = RequestStateMachine.make()
        var request = URLRequest.make("/a")
        guard case .none = machine.beginAttempt(sending: &request, base: request, sessionBodyLimit: 100) else {
            Issue.record("no attempt before resume"); return
        }
        _ = machine.resume()
        guard case .start(let number, let bodyFile, let collectsBody, let downloadsToFile, let limit, let discarding) =
            machine.beginAttempt(sending: &request, base: request, sessionBodyLimit: 100)
        else { Issue.record("an attempt begins once running"); return }
        #expect(number == 1)
        #expect(bodyFile == nil && collectsBody && !downloadsToFile && discarding == nil)
        #expect(limit == 100)
        #expect(machine.request?.url?.path == "/a")
        #expect(machine.response == nil)
    }

    @Test func theRequestsOwnBodyLimitWinsOverTheSessions() {
        var machine = RequestStateMachine.running()
        machine.maximumResponseBodySize = 7
        guard case .start(_, _, _, _, let limit, _) = machine.beginAttempt(path: "/a") else { Issue.record("begins"); return }
        #expect(limit == 7)
    }

    @Test func aProgressHandlerMakesTheSessionCollectTheBody() {
        var machine = RequestStateMachine.running()
        machine.progressHandlers.append(.ignoring)
        guard case .start(_, _, let collectsBody, _, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("begins"); return }
        #expect(!collectsBody, "the transport must report chunks for the handler")
    }

    @Test func eventsOfAStaleAttemptAreIgnored() {
        var machine = RequestStateMachine.running()
        _ = machine.beginAttempt(path: "/first")
        guard case .decide = machine.completeAttempt(1, body: nil) else { Issue.record("attempt 1 completes"); return }
        guard case .start(let number, _, _, _, _, _) = machine.beginAttempt(path: "/second") else { Issue.record("begins"); return }
        #expect(number == 2)
        guard case .ignore = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final) else { Issue.record("a stale head is ignored"); return }
        #expect(machine.response == nil)
        guard case .ignore = machine.completeAttempt(1, body: Data("stale".utf8)) else {
            Issue.record("a stale completion is ignored"); return
        }
        guard case .report = machine.receiveHead(.make(200), attempt: 2, continues: RequestStateMachine.final) else { Issue.record("the current head is kept"); return }
        #expect(machine.response?.statusCode == 200)
        #expect(machine.request?.url?.path == "/second")
    }

    @Test func anAttemptCompletesOnce() {
        var machine = RequestStateMachine.running()
        _ = machine.beginAttempt(path: "/a")
        guard case .decide = machine.completeAttempt(1, body: Data()) else { Issue.record("completes"); return }
        guard case .ignore = machine.completeAttempt(1, body: Data()) else { Issue.record("a second completion is ignored"); return }
        guard case .ignore = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final) else { Issue.record("a head after completion too"); return }
    }

    @Test func aTaskIsKeptOnlyByItsOwnAttempt() {
        var machine = RequestStateMachine.running()
        let first = StubTask(), second = StubTask()
        _ = machine.beginAttempt(path: "/a")
        _ = machine.completeAttempt(1, body: nil)
        _ = machine.beginAttempt(path: "/b")
        // The transport returned attempt 1's task after attempt 2 began.
        guard case .cancelTask(let cancelled) = machine.attach(first, toAttempt: 1) else {
            Issue.record("a stale attempt's task is cancelled"); return
        }
        #expect(cancelled as? StubTask === first)
        guard case .none = machine.attach(second, toAttempt: 2) else { Issue.record("the current attempt keeps its task"); return }
        guard case .settle(let leftovers) = machine.finish() else { Issue.record("finishes"); return }
        #expect(leftovers.task as? StubTask === second, "finishing cancels the task in flight")
    }

    @Test func aTaskAttachedAfterItsAttemptCompletedIsNotKept() {
        var machine = RequestStateMachine.running()
        _ = machine.beginAttempt(path: "/a")
        _ = machine.completeAttempt(1, body: nil)
        guard case .none = machine.attach(StubTask(), toAttempt: 1) else { Issue.record("nothing to cancel"); return }
        guard case .settle(let leftovers) = machine.finish() else { Issue.record("finishes"); return }
        #expect(leftovers.task == nil)
    }

    @Test func completingHandsOverWhatTheDecisionNeeds() {
        var machine = RequestStateMachine.running()
        machine.redirector = .doNotFollow
        machine.credential = URLCredential(user: "ada", password: "pw", persistence: .none)
        machine.maximumResponseBodySize = 9
        _ = machine.beginAttempt(path: "/sent", base: "/base")
        _ = machine.receiveHead(.make(401), attempt: 1, continues: RequestStateMachine.final)
        guard case .decide(let completed) = machine.completeAttempt(1, body: Data("body".utf8)) else {
            Issue.record("completes"); return
        }
        #expect(completed.request?.url?.path == "/sent")
        #expect(completed.base?.url?.path == "/base")
        #expect(completed.response?.statusCode == 401)
        #expect(completed.body == Data("body".utf8))
        #expect(completed.redirector != nil)
        #expect(completed.credential?.user == "ada")
        #expect(completed.maximumResponseBodySize == 9)
    }

    @Test func theCredentialAnswersOneChallengeUntilARetry() {
        var machine = RequestStateMachine.running()
        machine.credential = URLCredential(user: "ada", password: "pw", persistence: .none)
        #expect(machine.completedAttempt()?.credential != nil)
        guard case .prepareAttempt = machine.answerChallenge() else { Issue.record("the challenge is answered"); return }
        #expect(machine.completedAttempt()?.credential == nil, "sent once")
        guard case .scheduleRetry = machine.retry() else { Issue.record("retries"); return }
        #expect(machine.retryCount == 1)
        #expect(machine.completedAttempt()?.credential != nil, "a retry may answer again")
    }

    @Test func redirectsAreLimitedUntilARetry() {
        var machine = RequestStateMachine.running()
        _ = machine.completedAttempt()
        for _ in 0..<2 {
            guard case .prepareAttempt = machine.followRedirect(limit: 2) else { Issue.record("within the limit"); return }
        }
        guard case .fail(let error) = machine.followRedirect(limit: 2) else { Issue.record("past the limit"); return }
        #expect(error.urlError?.code == .httpTooManyRedirects)
        guard case .scheduleRetry = machine.retry() else { Issue.record("retries"); return }
        guard case .prepareAttempt = machine.followRedirect(limit: 2) else { Issue.record("counted anew after a retry"); return }
    }

    @Test func nothingFollowsAnAttemptOfARequestThatStopped() {
        var machine = RequestStateMachine.running()
        _ = machine.completedAttempt()
        _ = machine.cancel()
        guard case .none = machine.followRedirect(limit: 2) else { Issue.record("no redirect"); return }
        guard case .none = machine.answerChallenge() else { Issue.record("no challenge"); return }
        guard case .none = machine.retry() else { Issue.record("no retry"); return }
        #expect(machine.retryCount == 0)
        guard case .none = machine.beginAttempt(path: "/late") else { Issue.record("no attempt"); return }
    }

    @Test func cancelBeforeRunningSettlesAndNothingStartsAfter() {
        var machine = RequestStateMachine.make()
        machine.progressHandlers.append(.ignoring)
        guard case .settle = machine.cancel() else { Issue.record("settles, with nothing running to stop"); return }
        #expect(machine.requestState == .cancelled)
        #expect(machine.progressHandlers.isEmpty, "handlers are released")
        guard case .none = machine.resume() else { Issue.record("a cancelled request never runs"); return }
        guard case .none = machine.cancel() else { Issue.record("cancel is idempotent"); return }
        guard case .none = machine.finish() else { Issue.record("nor finishes"); return }
    }

    @Test func cancelWhileRunningStopsTheAttemptInFlight() {
        var machine = RequestStateMachine.running()
        let task = StubTask()
        _ = machine.beginAttempt(path: "/a")
        _ = machine.attach(task, toAttempt: 1)
        _ = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final)
        guard case .settleAndStop(let leftovers) = machine.cancel() else { Issue.record("stops what runs"); return }
        #expect(leftovers.task as? StubTask === task)
        #expect(machine.requestState == .cancelled)
        #expect(machine.request?.url?.path == "/a" && machine.response?.statusCode == 200, "the last attempt stays readable")
        guard case .ignore = machine.completeAttempt(1, body: nil) else { Issue.record("its completion is stale"); return }
        guard case .cancelTask = machine.attach(StubTask(), toAttempt: 1) else { Issue.record("a late task is cancelled"); return }
        guard case .none = machine.cancel() else { Issue.record("cancel is idempotent"); return }
    }

    /// Monitors heard of the attempt's task when it began: a cancel before
    /// the transport attached it still reports that task as cancelled, and
    /// the task attached afterwards is cancelled.
    @Test func cancelBeforeTheTaskIsAttachedStillStopsTheAttemptInFlight() {
        var machine = RequestStateMachine.running()
        _ = machine.beginAttempt(path: "/a")
        guard case .settleAndStop(let leftovers) = machine.cancel() else { Issue.record("stops what runs"); return }
        #expect(leftovers.task == nil && leftovers.inFlight && leftovers.attempt == 1)
        guard case .cancelTask = machine.attach(StubTask(), toAttempt: 1) else { Issue.record("the task attached late is cancelled"); return }
        var waiting = RequestStateMachine.running()
        _ = waiting.beginAttempt(path: "/a")
        _ = waiting.attach(StubTask(), toAttempt: 1)
        _ = waiting.completeAttempt(1, body: nil)
        guard case .settleAndStop(let afterwards) = waiting.cancel() else { Issue.record("stops what runs"); return }
        #expect(!afterwards.inFlight, "an attempt that completed has no task to cancel")
    }

    @Test func cancelAfterFinishingDoesNothing() {
        var machine = RequestStateMachine.running()
        _ = machine.finish()
        guard case .none = machine.cancel() else { Issue.record("a finished request stays finished"); return }
        #expect(machine.requestState == .finished)
    }

    @Test func finishingTwiceSettlesOnce() {
        var machine = RequestStateMachine.running()
        machine.progressHandlers.append(.ignoring)
        _ = machine.beginAttempt(path: "/a")
        _ = machine.receiveHead(.make(204), attempt: 1, continues: RequestStateMachine.final)
        guard case .settle = machine.finish() else { Issue.record("the first finish settles"); return }
        guard case .none = machine.finish() else { Issue.record("the second does nothing"); return }
        #expect(machine.requestState == .finished)
        #expect(machine.response?.statusCode == 204)
        #expect(machine.progressHandlers.isEmpty)
    }

    /// A serializer's retry: finished → running again, with one handler
    /// parked, attempts numbered on, and the parked handler handed back by
    /// the next finish or cancel.
    @Test func reopeningParksOneHandlerAndNumbersAttemptsOn() {
        var machine = RequestStateMachine.running()
        _ = machine.beginAttempt(path: "/a")
        _ = machine.completeAttempt(1, body: nil)
        machine.recordFailure(.cancelled)
        _ = machine.finish()
        let parked: RequestStateMachine.ParkedHandler = { _ in }
        let reopened = machine.reopen(parking: parked)
        #expect(reopened)
        #expect(machine.requestState == .resumed)
        #expect(machine.retryCount == 1)
        #expect(machine.failure == nil, "the failure it finished with is forgotten")
        let reopenedWhileRunning = machine.reopen(parking: parked)
        #expect(!reopenedWhileRunning, "a running request does not reopen")
        guard case .start(let number, _, _, _, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("begins"); return }
        #expect(number == 2)
        guard case .ignore = machine.completeAttempt(1, body: nil) else { Issue.record("the old attempt stays stale"); return }
        guard case .settle(let leftovers) = machine.finish() else { Issue.record("finishes"); return }
        #expect(leftovers.parked != nil, "the retried outcome goes to the parked handler")
        let reopenedAgain = machine.reopen(parking: parked)
        #expect(reopenedAgain, "and may be retried again")
        guard case .settleAndStop(let cancelled) = machine.cancel() else { Issue.record("cancels"); return }
        #expect(cancelled.parked != nil, "a cancelled reopened request hands the parked handler its cancellation")
        let reopenedCancelled = machine.reopen(parking: parked)
        #expect(!reopenedCancelled, "a cancelled request never reopens")
    }

    @Test func aRequestThatFailedToBuildIsFinishedFromTheStart() {
        var machine = RequestStateMachine(failedSending: .make("/bad"), tail: RequestStateMachine.tail)
        #expect(machine.requestState == .finished)
        #expect(machine.request?.url?.path == "/bad")
        guard case .none = machine.resume() else { Issue.record("never runs"); return }
    }
}
