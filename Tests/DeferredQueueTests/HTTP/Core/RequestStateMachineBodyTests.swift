import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

/// What each kind of request keeps of an attempt's body, driven on the state
/// machine alone.
@Suite("RequestStateMachine: bodies, uploads, downloads and streams")
struct RequestStateMachineBodyTests {
    // MARK: - In memory

    @Test func aCollectedBodyReportsProgressAndStopsAtItsLimit() {
        var machine = RequestStateMachine.running()
        machine.progressHandlers.append(.ignoring)
        _ = machine.beginAttempt(path: "/a", sessionBodyLimit: 5)
        _ = machine.receiveHead(.make(200, headers: ["Content-Length": "5"]), attempt: 1, continues: RequestStateMachine.final)
        guard case .report(let progress, let handlers) = machine.collect(Data("abc".utf8), attempt: 1) else {
            Issue.record("reports"); return
        }
        #expect(progress.completed == 3 && progress.expected == 5)
        #expect(handlers.count == 1)
        guard case .fail(let error) = machine.collect(Data("def".utf8), attempt: 1) else { Issue.record("past the limit"); return }
        #expect(error.isResponseTooLarge(limit: 5))
    }

    @Test func theSessionsCollectedBodyIsHandedToTheDecision() {
        var machine = RequestStateMachine.running()
        machine.progressHandlers.append(.ignoring)
        _ = machine.beginAttempt(path: "/a")
        _ = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final)
        _ = machine.collect(Data("ab".utf8), attempt: 1)
        _ = machine.collect(Data("cd".utf8), attempt: 1)
        guard case .none = machine.collect(Data("stale".utf8), attempt: 2) else { Issue.record("a stale chunk"); return }
        guard case .decide(let completed) = machine.completeAttempt(1, body: nil) else { Issue.record("completes"); return }
        #expect(completed.body == Data("abcd".utf8))
    }

    @Test func withoutHandlersAChunkReportsNothing() {
        var machine = RequestStateMachine.running(.upload(.init()))
        machine.uploadProgressHandlers.append(.ignoring)
        guard case .start(_, _, false, _, _, _) = machine.beginAttempt(path: "/a") else {
            Issue.record("an upload progress handler wants chunks too"); return
        }
        guard case .none = machine.collect(Data("ab".utf8), attempt: 1) else { Issue.record("no download handler to tell"); return }
    }

    // MARK: - Uploads

    @Test func anUploadSendsItsPreparedBodyWithEveryAttempt() {
        var machine = RequestStateMachine.running(.upload(.init()))
        guard case .prepareAttempt = machine.bodyPrepared(.encoded(Data("form".utf8))) else { Issue.record("prepared"); return }
        for expected in 1...2 {
            var request = URLRequest.make("/upload")
            guard case .start(let number, let bodyFile, _, _, _, _) =
                machine.beginAttempt(sending: &request, base: request, sessionBodyLimit: 100)
            else { Issue.record("begins"); return }
            #expect(number == expected)
            #expect(bodyFile == nil)
            #expect(request.httpBody == Data("form".utf8))
            _ = machine.completeAttempt(number, body: nil)
        }
    }

    @Test func anUploadsFileIsStreamedAndOnlyItsOwnFileIsRemoved() {
        let callers = URL(fileURLWithPath: "/tmp/caller"), ours = URL(fileURLWithPath: "/tmp/ours")
        var machine = RequestStateMachine.running(.upload(.init()))
        _ = machine.bodyPrepared(.file(callers))
        guard case .start(_, callers?, _, _, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("streams the file"); return }
        guard case .settle(let leftovers) = machine.finish() else { Issue.record("finishes"); return }
        #expect(leftovers.temporaryFile == nil, "the caller's file is not ours to remove")

        var encoded = RequestStateMachine.running(.upload(.init()))
        _ = encoded.bodyPrepared(.temporaryFile(ours))
        guard case .start(_, ours?, _, _, _, _) = encoded.beginAttempt(path: "/a") else { Issue.record("streams the file"); return }
        guard case .settleAndStop(let cancelled) = encoded.cancel() else { Issue.record("cancels"); return }
        #expect(cancelled.temporaryFile == ours)
        #expect(encoded.takeTemporaryFile() == nil, "removed once")
    }

    @Test func aFormEncodedAfterTheRequestEndedIsRemovedAtOnce() {
        let ours = URL(fileURLWithPath: "/tmp/ours")
        var machine = RequestStateMachine.running(.upload(.init()))
        _ = machine.cancel()
        guard case .removeTemporaryFile(ours) = machine.bodyPrepared(.temporaryFile(ours)) else {
            Issue.record("nobody else would remove it"); return
        }
        guard case .none = machine.bodyPrepared(.encoded(Data())) else { Issue.record("nothing to send"); return }
    }

    @Test func uploadProgressGoesToTheCurrentAttemptOnly() {
        var machine = RequestStateMachine.running(.upload(.init()))
        machine.uploadProgressHandlers.append(.ignoring)
        _ = machine.beginAttempt(path: "/a")
        #expect(machine.uploadProgressHandlers(attempt: 1).count == 1)
        #expect(machine.uploadProgressHandlers(attempt: 0).isEmpty)
        _ = machine.completeAttempt(1, body: nil)
        #expect(machine.uploadProgressHandlers(attempt: 1).isEmpty)
    }

    // MARK: - Streams

    @Test func streamChunksGoToTheHandlersWithinTheLimit() {
        var machine = RequestStateMachine.running(.stream(.init()))
        machine.addStreamHandler(StreamHandler(queue: .global(), chunk: { _ in }, complete: { _ in }))
        guard case .start(_, _, false, false, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("never collects"); return }
        guard case .none = machine.receiveStreamChunk(count: 1, attempt: 1, sessionLimit: 4) else {
            Issue.record("no chunk before the head"); return
        }
        _ = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final)
        guard case .deliver(let handlers) = machine.receiveStreamChunk(count: 3, attempt: 1, sessionLimit: 4) else {
            Issue.record("delivers"); return
        }
        #expect(handlers.count == 1)
        guard case .fail(let error) = machine.receiveStreamChunk(count: 2, attempt: 1, sessionLimit: 4) else {
            Issue.record("the total is limited"); return
        }
        #expect(error.isResponseTooLarge(limit: 4))
    }

    /// What makes a stream's failures final (`Request.retryOrFinish`): a
    /// chunk a handler was given, not a head, nor a body nobody received.
    @Test func onlyAChunkHandedToAHandlerMarksTheStream() {
        var machine = RequestStateMachine.running(.stream(.init()))
        _ = machine.beginAttempt(path: "/a")
        _ = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final)
        _ = machine.receiveStreamChunk(count: 1, attempt: 1, sessionLimit: 100)
        #expect(!machine.streamChunkHandedOver, "no handler to give it to")
        machine.addStreamHandler(StreamHandler(queue: .global(), chunk: { _ in }, complete: { _ in }))
        _ = machine.reject(attempt: 1, with: .responseValidationFailed(reason: .unacceptableStatusCode(code: 503)))
        _ = machine.receiveStreamChunk(count: 1, attempt: 1, sessionLimit: 100)
        #expect(!machine.streamChunkHandedOver, "a refused head's body is dropped")
        _ = machine.completeAttempt(1, body: nil)
        _ = machine.beginAttempt(path: "/a")
        _ = machine.receiveHead(.make(200), attempt: 2, continues: RequestStateMachine.final)
        #expect(!machine.streamChunkHandedOver, "a head alone")
        _ = machine.receiveStreamChunk(count: 1, attempt: 2, sessionLimit: 100)
        #expect(machine.streamChunkHandedOver)
    }

    /// A redirect followed, a challenge answered: the request goes on, and
    /// the head's body is not the stream, nor do the validators judge it;
    /// it still counts against the body limit.
    @Test(arguments: [302, 401])
    func theBodyOfAHeadTheRequestGoesOnFromIsNotTheStream(_ status: Int) {
        var machine = RequestStateMachine.running(.stream(.init()))
        machine.addHeadValidator { _, _, _ in .success(()) }
        _ = machine.beginAttempt(path: "/a")
        guard case .reportContinuing = machine.receiveHead(.make(status), attempt: 1, continues: { _ in true }) else {
            Issue.record("not judged, not final"); return
        }
        guard case .none = machine.receiveStreamChunk(count: 98, attempt: 1, sessionLimit: 100) else {
            Issue.record("dropped"); return
        }
        #expect(!machine.streamChunkHandedOver)
        guard case .fail(.responseTooLarge(limit: 100)) = machine.receiveStreamChunk(count: 3, attempt: 1, sessionLimit: 100) else {
            Issue.record("past the limit"); return
        }
        #expect(machine.deferredHeadValidation()?.validators.count == 1, "judged if it turns out final")
    }

    /// A stream's head judged final as it arrived was streamed: a
    /// credential or redirector set before the attempt ends does not make
    /// the request go on from it.
    @Test(arguments: [302, 401])
    func aStreamsFinalHeadStaysFinalWhateverIsSetBeforeItsEnd(_ status: Int) {
        var machine = RequestStateMachine.running(.stream(.init()))
        _ = machine.beginAttempt(path: "/a")
        _ = machine.receiveHead(.make(status), attempt: 1, continues: RequestStateMachine.final)
        machine.credential = URLCredential(user: "u", password: "p", persistence: .none)
        machine.redirector = .follow
        guard case .decide(let completed) = machine.completeAttempt(1, body: nil) else {
            Issue.record("decided"); return
        }
        #expect(completed.credential == nil)
        guard case .doNotFollow? = completed.redirector?.behavior else {
            Issue.record("not followed: \(String(describing: completed.redirector))"); return
        }
    }

    /// A redirect or challenge the request does not go on from is the final
    /// head: judged as it arrives, its body the stream's.
    @Test(arguments: [302, 401])
    func theBodyOfAFinalRedirectOrChallengeIsTheStream(_ status: Int) {
        var machine = RequestStateMachine.running(.stream(.init()))
        machine.addHeadValidator { _, _, _ in .success(()) }
        _ = machine.beginAttempt(path: "/a")
        guard case .reportAndValidate = machine.receiveHead(.make(status), attempt: 1, continues: RequestStateMachine.final) else {
            Issue.record("judged"); return
        }
        guard case .deliver = machine.receiveStreamChunk(count: 3, attempt: 1, sessionLimit: 100) else {
            Issue.record("delivered"); return
        }
        #expect(machine.deferredHeadValidation() == nil)
    }

    @Test func aStreamsHeadIsJudgedByItsValidators() {
        var machine = RequestStateMachine.running(.stream(.init()))
        _ = machine.beginAttempt(path: "/a")
        guard case .report = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final) else { Issue.record("nothing to judge yet"); return }
        machine.addHeadValidator { _, _, _ in .success(()) }
        _ = machine.completeAttempt(1, body: nil)
        _ = machine.beginAttempt(path: "/b")
        guard case .reportAndValidate(let validators, let request) = machine.receiveHead(.make(200), attempt: 2, continues: RequestStateMachine.final) else {
            Issue.record("judged"); return
        }
        #expect(validators.count == 1)
        #expect(request?.url?.path == "/b")
    }

    // MARK: - Downloads

    @Test func aDownloadFileIsHandedOutForEachWriteAndBack() {
        let file = DownloadFile(finishedAt: URL(fileURLWithPath: "/tmp/partial"))
        var machine = RequestStateMachine.running(.download(fileURL: nil))
        machine.progressHandlers.append(.ignoring)
        guard case .start(_, _, false, true, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("to a file"); return }
        _ = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final)
        guard case .write(to: nil) = machine.receiveDownloadChunk(count: 3, attempt: 1, sessionLimit: 100) else {
            Issue.record("the first chunk creates the file"); return
        }
        guard case .report(let progress, _) = machine.downloadChunkWritten(file, attempt: 1, monitored: false) else { Issue.record("reports"); return }
        #expect(progress.completed == file.length)
        #expect(machine.download?.url == file.url)
        guard case .write(let handedOut?) = machine.receiveDownloadChunk(count: 3, attempt: 1, sessionLimit: 100) else {
            Issue.record("the file is handed out"); return
        }
        #expect(handedOut.url == file.url)
        guard case .writing(file.url) = machine.download else { Issue.record("the state knows it is out"); return }
        guard case .settle(let leftovers) = machine.finish() else { Issue.record("finishes"); return }
        #expect(leftovers.downloadFile == nil, "a file being written is its writer's to remove")
        guard case .discard(let back) = machine.downloadChunkWritten(handedOut, attempt: 1, monitored: false) else {
            Issue.record("handed back too late"); return
        }
        #expect(back.url == file.url)
    }

    @Test func aDownloadStopsBeforeItsFileGrowsPastTheLimit() {
        var machine = RequestStateMachine.running(.download(fileURL: nil))
        machine.maximumResponseBodySize = 2
        _ = machine.beginAttempt(path: "/a")
        _ = machine.receiveHead(.make(200), attempt: 1, continues: RequestStateMachine.final)
        guard case .fail(let error) = machine.receiveDownloadChunk(count: 3, attempt: 1, sessionLimit: 100) else {
            Issue.record("the request's own limit applies"); return
        }
        #expect(error.isResponseTooLarge(limit: 2))
    }

    @Test func theLastAttemptsFileIsTheDownloadAndEarlierOnesAreRemoved() {
        let first = URL(fileURLWithPath: "/tmp/first"), second = URL(fileURLWithPath: "/tmp/second")
        var machine = RequestStateMachine.running(.download(fileURL: nil))
        _ = machine.beginAttempt(path: "/a")
        guard case .keep(nil) = machine.transportDownloaded(to: first, attempt: 1) else { Issue.record("kept"); return }
        _ = machine.completeAttempt(1, body: nil)
        guard case .start(_, _, _, _, _, let discarding?) = machine.beginAttempt(path: "/b") else {
            Issue.record("the next attempt removes the previous file"); return
        }
        #expect(discarding.url == first)
        guard case .remove(first) = machine.transportDownloaded(to: first, attempt: 1) else {
            Issue.record("a stale attempt's file is removed"); return
        }
        _ = machine.transportDownloaded(to: second, attempt: 2)
        guard case .settle(let leftovers) = machine.finish() else { Issue.record("finishes"); return }
        #expect(leftovers.downloadFile?.url == second)
    }

    @Test func aCancelledDownloadLeavesItsFileToRemove() {
        let url = URL(fileURLWithPath: "/tmp/partial")
        var machine = RequestStateMachine.running(.download(fileURL: nil))
        _ = machine.beginAttempt(path: "/a")
        _ = machine.transportDownloaded(to: url, attempt: 1)
        guard case .settleAndStop(let leftovers) = machine.cancel() else { Issue.record("cancels"); return }
        #expect(leftovers.downloadFile?.url == url)
    }

    @Test func aTransportsFileGrowthIsLimitedAndReported() {
        var machine = RequestStateMachine.running(.download(fileURL: nil))
        machine.progressHandlers.append(.ignoring)
        _ = machine.beginAttempt(path: "/a")
        _ = machine.receiveHead(.make(200, headers: ["Content-Encoding": "gzip"]), attempt: 1, continues: RequestStateMachine.final)
        guard case .report(let progress, _) = machine.downloadGrew(to: 3, of: 10, attempt: 1, sessionLimit: 5, monitored: false) else {
            Issue.record("reports"); return
        }
        #expect(progress.completed == 3)
        #expect(progress.expected == nil, "a compressed length is not the file's")
        guard case .fail(let error) = machine.downloadGrew(to: 6, of: 10, attempt: 1, sessionLimit: 5, monitored: false) else {
            Issue.record("past the limit"); return
        }
        #expect(error.isResponseTooLarge(limit: 5))
        guard case .none = machine.downloadGrew(to: 6, of: 10, attempt: 2, sessionLimit: 5, monitored: false) else { Issue.record("stale"); return }
    }

    /// Without progress handlers, growth is reported only for event monitors.
    @Test func growthWithoutHandlersIsReportedOnlyWhenMonitored() {
        var machine = RequestStateMachine.running(.download(fileURL: nil))
        _ = machine.beginAttempt(path: "/a")
        _ = machine.receiveHead(.make(200, headers: ["Content-Length": "10"]), attempt: 1, continues: RequestStateMachine.final)
        guard case .none = machine.downloadGrew(to: 3, of: 10, attempt: 1, sessionLimit: 50, monitored: false) else {
            Issue.record("nobody to tell"); return
        }
        guard case .report(let progress, let handlers) = machine.downloadGrew(to: 3, of: 10, attempt: 1, sessionLimit: 50, monitored: true) else {
            Issue.record("the monitors hear it"); return
        }
        #expect(progress.completed == 3 && progress.expected == 10)
        #expect(handlers.isEmpty)
        #expect(machine.isInFlight(attempt: 1))
        #expect(!machine.isInFlight(attempt: 2))
        guard case .none = machine.downloadGrew(to: 4, of: 10, attempt: 2, sessionLimit: 50, monitored: true) else {
            Issue.record("a stale attempt is not heard"); return
        }
    }
}

extension HTTPError {
    func isResponseTooLarge(limit expected: Int) -> Bool {
        if case .responseTooLarge(let limit) = self { return limit == expected }
        return false
    }
}
