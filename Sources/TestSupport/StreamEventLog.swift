import DeferredQueue
import Foundation

/// Records one stream handler's events (values, failures as text, the
/// completion) and arrives at ``done`` on `.complete`.
public final class StreamEventLog<Success: Sendable, Failure: Error>: Sendable {
    public let values = Recorder<Success>()
    public let failures = Recorder<String>()
    public let completions = Recorder<DataStreamRequest.Completion>()
    public let done = Latch()

    public init() {}

    public func record(_ stream: DataStreamRequest.Stream<Success, Failure>) {
        switch stream.event {
        case .stream(.success(let value)): values.append(value)
        case .stream(.failure(let error)): failures.append("\(error)")
        case .complete(let completion):
            completions.append(completion)
            done.arrive()
        }
    }
}

extension StreamEventLog where Success == Data {
    /// The chunks received, joined.
    public var body: Data { values.events.reduce(into: Data()) { $0.append($1) } }
}
