import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing
@testable import DeferredQueue

/// `suspend()` / `resume()` in the state machine alone.
@Suite("RequestStateMachine: suspension")
struct RequestStateMachineSuspensionTests {
    @Test func aRequestSuspendedBeforeItStartsIsNotStartedByAHandler() {
        var machine = RequestStateMachine.make()
        guard case .suspended = machine.suspend() else { Issue.record("suspends"); return }
        guard case .none = machine.suspend() else { Issue.record("once"); return }
        #expect(machine.requestState == .suspended)
        guard case .none = machine.resume() else { Issue.record("the automatic start waits"); return }
        guard case .start = machine.unsuspend(holding: nil) else { Issue.record("resume() starts it"); return }
        guard case .run = machine.resume() else { Issue.record("runs"); return }
        #expect(machine.requestState == .resumed)
    }

    @Test func theEventsOfTheAttemptInFlightAreHeldUntilResumeInOrder() {
        var machine = RequestStateMachine.running()
        guard case .start(let number, _, _, _, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("begins"); return }
        guard case .handle = machine.hold(.chunk(Data("0".utf8), handled: nil), attempt: number) else {
            Issue.record("not held while running"); return
        }
        _ = machine.suspend()
        #expect(machine.requestState == .suspended)
        for byte in ["1", "2"] {
            guard case .held = machine.hold(.chunk(Data(byte.utf8), handled: nil), attempt: number) else { Issue.record("held"); return }
        }
        guard case .held = machine.hold(.completion(body: nil, error: nil), attempt: number) else { Issue.record("held"); return }
        let whileSuspended = machine.releaseHeld(attempt: number)
        #expect(whileSuspended.isEmpty, "nothing is released while suspended")
        guard case .proceed(let attempt, let work) = machine.unsuspend(holding: nil) else { Issue.record("proceeds"); return }
        #expect(attempt == number)
        #expect(work == nil)
        #expect(machine.requestState == .resumed)
        let held = machine.releaseHeld(attempt: number)
        let kinds = held.map { event -> String in
            switch event {
            case .chunk(let data, _): return String(decoding: data, as: UTF8.self)
            case .completion: return "end"
            }
        }
        #expect(kinds == ["1", "2", "end"])
        guard case .handle = machine.hold(.chunk(Data(), handled: nil), attempt: number) else { Issue.record("released"); return }
    }

    @Test func aDispositionArrivingWhileSuspendedReleasesNothing() {
        var machine = RequestStateMachine.running()
        guard case .start(let number, _, _, _, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("begins"); return }
        machine.awaitDisposition(attempt: number)
        _ = machine.hold(.chunk(Data("a".utf8), handled: nil), attempt: number)
        _ = machine.suspend()
        let disposed = machine.disposed(attempt: number)
        #expect(disposed.isEmpty, "still suspended")
        _ = machine.unsuspend(holding: nil)
        let released = machine.releaseHeld(attempt: number)
        #expect(released.count == 1)
    }

    @Test func chunksATransportDidNotWaitForAreHeldUpToTheLimit() {
        var machine = RequestStateMachine.running(.stream(.init()))
        guard case .start(let number, _, _, _, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("begins"); return }
        _ = machine.suspend()
        let chunk = Data(count: 1 << 20)
        for _ in 0..<16 {
            guard case .held = machine.hold(.chunk(chunk, handled: nil), attempt: number) else { Issue.record("within the limit"); return }
        }
        guard case .overflow(.responseTooLarge(let limit)) = machine.hold(.chunk(Data(count: 1), handled: nil), attempt: number) else {
            Issue.record("past the limit"); return
        }
        #expect(limit == RequestStateMachine.suspendedHoldLimit)
        // A chunk the transport waits for holds the transfer back instead: not counted.
        guard case .held = machine.hold(.chunk(chunk, handled: {}), attempt: number) else { Issue.record("held"); return }
    }

    @Test func theAttemptASuspensionStoppedIsHandedToResume() {
        var machine = RequestStateMachine.running()
        let waits = machine.waitIfSuspended {}
        #expect(!waits, "not suspended: go on")
        _ = machine.suspend()
        let ran = Atomic(0)
        let waitsNow = machine.waitIfSuspended { ran.add(1, ordering: .relaxed) }
        #expect(waitsNow)
        guard case .proceed(let attempt, let work?) = machine.unsuspend(holding: nil) else { Issue.record("hands the work over"); return }
        #expect(attempt == nil, "no attempt in flight")
        work()
        #expect(ran.load(ordering: .relaxed) == 1)
        guard case .notSuspended = machine.unsuspend(holding: nil) else { Issue.record("once"); return }
    }

    @Test func cancellingASuspendedRequestHandsBackTheChunksTheTransportWaitsFor() {
        var machine = RequestStateMachine.running()
        guard case .start(let number, _, _, _, _, _) = machine.beginAttempt(path: "/a") else { Issue.record("begins"); return }
        _ = machine.suspend()
        _ = machine.waitIfSuspended({})
        _ = machine.hold(.chunk(Data("a".utf8), handled: {}), attempt: number)
        _ = machine.hold(.chunk(Data("b".utf8), handled: nil), attempt: number)
        _ = machine.hold(.chunk(Data("c".utf8), handled: {}), attempt: number)
        guard case .settleAndStop(let leftovers) = machine.cancel() else { Issue.record("cancels"); return }
        #expect(leftovers.handled.count == 2, "the transport hears each one it waits for")
        #expect(machine.waitingForResume == nil)
        #expect(machine.requestState == .cancelled)
    }
}
