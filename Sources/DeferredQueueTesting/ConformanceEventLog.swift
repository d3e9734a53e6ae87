import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LockSupport
import Synchronization

/// Records one attempt's events for a conformance check, and every way they
/// broke the contract: off the callback queue, two at once, out of order,
/// after the completion.
final class ConformanceEventLog: HTTPTransportEvents {
    enum Event: Sendable {
        case head(HTTPURLResponse)
        case data(Data)
        case sent(Int64, of: Int64?)
        case downloaded(Int64)
        case finishedDownloading(URL)
        case complete(body: Data?, error: (any Error)?)
    }

    private struct State {
        var events: [Event] = []
        var violations: [String] = []
        var inEvent = false
    }

    private let state = Mutex(State())
    private let key: DispatchSpecificKey<ObjectIdentifier>
    private let queueMark: ObjectIdentifier
    /// Whether ``didCompleteDirectly(head:body:)`` takes the completion.
    private let takesDirectCompletions: Bool

    /// - Parameters:
    ///   - queue: The transport's callback queue, where every event must run.
    ///   - takesDirectCompletions: Whether a completion offered off the
    ///     queue is taken (as a session takes it when it runs none of the
    ///     caller's code) or refused (the transport must then report on the queue).
    init(expecting queue: DispatchQueue, takesDirectCompletions: Bool = false) {
        key = DispatchSpecificKey()
        queueMark = ObjectIdentifier(queue)
        queue.setSpecific(key: key, value: queueMark)
        self.takesDirectCompletions = takesDirectCompletions
    }

    var events: [Event] { state.withLock(owner: self) { $0.events } }
    var violations: [String] { state.withLock(owner: self) { $0.violations } }

    var isComplete: Bool {
        events.contains { if case .complete = $0 { true } else { false } }
    }

    var heads: [HTTPURLResponse] {
        events.compactMap { if case .head(let head) = $0 { head } else { nil } }
    }

    var chunks: [Data] {
        events.compactMap { if case .data(let data) = $0 { data } else { nil } }
    }

    var sent: [Int64] {
        events.compactMap { if case .sent(let bytes, _) = $0 { bytes } else { nil } }
    }

    /// The completion's body and error (the first, if there were several).
    var completion: (body: Data?, error: (any Error)?)? {
        for event in events { if case .complete(let body, let error) = event { return (body, error) } }
        return nil
    }

    private func record(_ event: Event, _ name: String, direct: Bool = false) {
        let onQueue = direct || DispatchQueue.getSpecific(key: key) == queueMark
        state.withLock(owner: self) { state in
            if !onQueue { state.violations.append("\(name) ran off the transport's callback queue") }
            if state.inEvent { state.violations.append("\(name) ran while another event was running") }
            if state.events.contains(where: { if case .complete = $0 { true } else { false } }) {
                state.violations.append("\(name) came after the completion")
            }
            switch event {
            case .head:
                if !state.events.isEmpty, state.events.contains(where: { if case .head = $0 { true } else { false } }) {
                    state.violations.append("a second response head was reported")
                }
                if state.events.contains(where: { if case .data = $0 { true } else { false } }) {
                    state.violations.append("the head came after body data")
                }
            case .data:
                if !state.events.contains(where: { if case .head = $0 { true } else { false } }) {
                    state.violations.append("body data came before the head")
                }
            default:
                break
            }
            state.events.append(event)
            state.inEvent = true
        }
    }

    private func leave() {
        state.withLock(owner: self) { $0.inEvent = false }
    }

    func didReceive(response: HTTPURLResponse) {
        record(.head(response), "didReceive(response:)")
        leave()
    }

    func didReceive(data: Data, handled: (@Sendable () -> Void)?) {
        record(.data(data), "didReceive(data:handled:)")
        leave()
        handled?()
    }

    func didSend(bytes: Int64, of expected: Int64?) {
        record(.sent(bytes, of: expected), "didSend(bytes:of:)")
        leave()
    }

    func didDownload(bytes: Int64, of expected: Int64?) {
        record(.downloaded(bytes), "didDownload(bytes:of:)")
        leave()
    }

    func didFinishDownloading(to file: URL) {
        record(.finishedDownloading(file), "didFinishDownloading(to:)")
        leave()
        try? FileManager.default.removeItem(at: file)
    }

    func didComplete(body: Data?, error: (any Error)?) {
        record(.complete(body: body, error: error), "didComplete(body:error:)")
        leave()
    }

    /// Records the head and the completion at once, off the queue, when the
    /// log takes direct completions; a refused offer records nothing.
    func didCompleteDirectly(head: ResponseHead, body: Data) -> Bool {
        guard takesDirectCompletions else { return false }
        record(.head(head.response), "didCompleteDirectly(head:body:)", direct: true)
        leave()
        record(.complete(body: body, error: nil), "didCompleteDirectly(head:body:)", direct: true)
        leave()
        return true
    }
}
