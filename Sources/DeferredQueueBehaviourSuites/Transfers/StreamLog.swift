import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
@testable import DeferredQueue

/// Collects one stream handler's events until `.complete`.
final class StreamLog: Sendable {
    let chunks = Recorder<Data>()
    let completions = Recorder<DataStreamRequest.Completion>()
    let complete = Latch()

    func record(_ stream: DataStreamRequest.Stream<Data, Never>) {
        switch stream.event {
        case .stream(.success(let data)): chunks.append(data)
        case .complete(let completion):
            completions.append(completion)
            complete.arrive()
        }
    }

    var body: Data { chunks.events.reduce(into: Data()) { $0.append($1) } }
}
