import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

/// The fields most requests never set live out of line (`RareFields`),
/// allocated on the first one set and copied on write: the state machine
/// stays a value.
@Suite("RequestStateMachine: rare fields out of line")
struct RequestStateMachineRareFieldsTests {
    @Test func noRareFieldIsAllocatedUntilOneIsSet() {
        var machine = RequestStateMachine.make()
        machine.failure = nil
        machine.resumeData = nil
        machine.waitingForResume = nil
        #expect(machine.rare == nil, "clearing a field that was never set allocates nothing")
        machine.recordFailure(.cancelled)
        #expect(machine.rare != nil)
        guard case .cancelled = machine.failure else {
            Issue.record("the failure set is read back: \(String(describing: machine.failure))")
            return
        }
    }

    @Test func aCopyChangesIndependently() {
        var original = RequestStateMachine.make()
        original.resumeData = Data("partial".utf8)
        var copy = original
        copy.resumeData = Data("other".utf8)
        copy.recordFailure(.cancelled)
        #expect(original.resumeData == Data("partial".utf8), "the original keeps its own value")
        #expect(original.failure == nil)
        #expect(copy.resumeData == Data("other".utf8))
        #expect(copy.failure != nil)
    }

    @Test func everyFieldReadsBackWhatWasSet() {
        var machine = RequestStateMachine.make()
        let id = machine.id()
        #expect(machine.id() == id, "the id is made once")
        machine.resumeData = Data([1, 2, 3])
        machine.waitingForResume = {}
        machine.parked = { _ in }
        #expect(machine.resumeData == Data([1, 2, 3]) && machine.waitingForResume != nil && machine.parked != nil)
        machine.waitingForResume = nil
        machine.parked = nil
        #expect(machine.waitingForResume == nil && machine.parked == nil && machine.id() == id)
    }
}
