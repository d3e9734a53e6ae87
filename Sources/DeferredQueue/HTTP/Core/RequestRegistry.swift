import LockSupport
import Synchronization

/// The running requests of one ``Session``: what keeps a running request
/// alive, and what ``Session/cancelAllRequests()`` cancels.
final class RequestRegistry: Sendable {
    private let requests = Mutex<[ObjectIdentifier: Request]>([:])

    func insert(_ request: Request) {
        requests.withLock(owner: self) { $0[ObjectIdentifier(request)] = request }
    }

    func remove(_ request: Request) {
        _ = requests.withLock(owner: self) { $0.removeValue(forKey: ObjectIdentifier(request)) }
    }

    /// The requests running now.
    var all: [Request] {
        requests.withLock(owner: self) { Array($0.values) }
    }

    /// How many requests are running (for leak checks).
    var count: Int {
        requests.withLock(owner: self) { $0.count }
    }
}
