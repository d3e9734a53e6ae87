import DeferredQueue
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOPosix
import TestSupport

/// Records one attempt's transport events, and where each one ran.
final class TransportEventLog: HTTPTransportEvents {
    enum Event: Sendable {
        case response(Int)
        case data(Data)
        case sent(Int64, of: Int64?)
        case complete(status: Int?, body: Data?, error: URLError?)
    }

    private let queueKey = DispatchSpecificKey<Bool>()
    private let events = Recorder<Event>()
    /// Events that ran off the callback queue or on a SwiftNIO event loop.
    private let misplaced = Recorder<String>()
    let completed = Latch()
    /// Whether a completion offered off the queue is taken.
    private let takesDirectCompletions: Bool
    /// The event loop each completion offered off the queue came from (`nil`: none).
    private let offers = Recorder<ObjectIdentifier?>()

    /// - Parameters:
    ///   - queue: The transport's callback queue, where every event must run
    ///     (but a direct completion, which comes from the event loop).
    ///   - takesDirectCompletions: Whether ``didCompleteDirectly(head:body:)`` takes one.
    init(expecting queue: DispatchQueue, takesDirectCompletions: Bool = false) {
        queue.setSpecific(key: queueKey, value: true)
        self.takesDirectCompletions = takesDirectCompletions
    }

    /// For each completion offered off the queue, whether it was offered on an event loop.
    var directOffers: [Bool] { offers.events.map { $0 != nil } }

    /// The event loop of each completion offered off the queue.
    var directOfferLoops: [ObjectIdentifier?] { offers.events }

    var all: [Event] { events.events }
    var misplacedEvents: [String] { misplaced.events }

    /// Every completion (a correct attempt has exactly one).
    var completions: [(status: Int?, body: Data?, error: URLError?)] {
        all.compactMap { event in
            if case .complete(let status, let body, let error) = event { return (status, body, error) }
            return nil
        }
    }

    /// The streamed chunks, in order.
    var chunks: [Data] {
        all.compactMap { event in
            if case .data(let data) = event { return data }
            return nil
        }
    }

    private func record(_ event: Event, _ name: String) {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil { misplaced.append("\(name) on an event loop") }
        if DispatchQueue.getSpecific(key: queueKey) != true { misplaced.append("\(name) off the callback queue") }
        events.append(event)
    }

    func didReceive(response: HTTPURLResponse) { record(.response(response.statusCode), "didReceive(response:)") }
    func didReceive(data: Data, handled: (@Sendable () -> Void)?) {
        record(.data(data), "didReceive(data:handled:)")
        handled?()
    }
    func didSend(bytes: Int64, of expected: Int64?) { record(.sent(bytes, of: expected), "didSend") }
    func didDownload(bytes: Int64, of expected: Int64?) { record(.sent(bytes, of: expected), "didDownload") }
    func didFinishDownloading(to file: URL) { record(.data(Data()), "didFinishDownloading") }

    func didCompleteDirectly(head: ResponseHead, body: Data) -> Bool {
        offers.append(MultiThreadedEventLoopGroup.currentEventLoop.map { ObjectIdentifier($0 as AnyObject) })
        guard takesDirectCompletions else { return false }
        events.append(.response(head.statusCode))
        events.append(.complete(status: head.statusCode, body: body, error: nil))
        completed.arrive()
        return true
    }

    func didComplete(body: Data?, error: (any Error)?) {
        // The status of the head reported before, if any.
        let status = all.last { if case .response = $0 { true } else { false } }.flatMap { event -> Int? in
            if case .response(let status) = event { return status }
            return nil
        }
        record(.complete(status: status, body: body, error: error as? URLError), "didComplete")
        completed.arrive()
    }
}
