import Dispatch

/// What a request's handler queue targets once the request settles.
///
/// By default it targets the global pool: every request serializes on a
/// thread of its own, in parallel, then hands each response to the queue
/// its handler named — a second thread to wake. When every handler of the
/// request named the same queue (not the main queue) and runs only the
/// library's serializers, the handler queue targets that queue instead: its
/// turn and the handler it enqueues run on one thread, back to back, with no
/// wake-up between them. The handlers still run once each, in registration
/// order, each on the queue it named; what moves is the serializing, onto
/// the queue that receives it. Serializing whose work grows with the body
/// (a string, JSON, a `Decodable`) moves only for a small body, so that
/// large ones are still decoded in parallel when many requests name one
/// queue; handing the body over as it is (`Data`) moves at any size.
/// The choice is frozen when the request finishes: handlers chained after
/// that run where it points, whatever they do with the body.
enum HandlerLane: Sendable {
    /// No handler yet.
    case unchosen
    /// Every handler so far runs on this queue and only the library's code
    /// on the handler queue, which hands the body over as it is: followed
    /// whatever the body's size.
    case followsAnySize(DispatchQueue)
    /// The same, but some of that code decodes the body: followed for a
    /// body of at most ``bodyLimit``. (Two cases rather than a flag beside
    /// the queue: the enum stays one word in every request's state.)
    case follows(DispatchQueue)
    /// The global pool: a handler ran elsewhere or ran caller code on the
    /// handler queue, or the session has a `serializationQueue`.
    case shared

    /// The largest body whose serializing moves onto the handlers' queue
    /// when its work grows with the body.
    static let bodyLimit = 64 << 10

    /// Takes a handler into account: `queue` is where it runs, `nil` when it
    /// cannot follow (it runs on the handler queue, or runs caller code there);
    /// `growsWithBody`: its serializing's work grows with the body.
    mutating func add(handlerOn queue: DispatchQueue?, growsWithBody: Bool = true) {
        switch (self, queue) {
        case (.unchosen, let queue?) where !Self.isMain(queue):
            self = growsWithBody ? .follows(queue) : .followsAnySize(queue)
        case (.followsAnySize(let chosen), let queue?) where chosen === queue:
            if growsWithBody { self = .follows(chosen) }
        case (.follows(let chosen), let queue?) where chosen === queue:
            break
        default:
            self = .shared
        }
    }

    /// Whether `queue` is the main queue. Not by identity: on Linux every
    /// read of `DispatchQueue.main` makes a new object; by a value only the
    /// main queue holds (a queue that merely targets it does not).
    static func isMain(_ queue: DispatchQueue) -> Bool {
        queue.getSpecific(key: mainQueueKey) == true
    }

    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// The queue to target for a settled outcome with a body of `bodySize` bytes.
    func target(forBodyOf bodySize: Int) -> DispatchQueue? {
        switch self {
        case .followsAnySize(let queue): queue
        case .follows(let queue) where bodySize <= Self.bodyLimit: queue
        default: nil
        }
    }
}
