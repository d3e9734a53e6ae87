import AsyncHTTPClient
import NIOCore
import Synchronization

/// Which event loop an attempt asks AsyncHTTPClient for.
///
/// AsyncHTTPClient runs a request's delegate on the loop of its
/// `EventLoopPreference`, `.indifferent` meaning the loop of the calling
/// thread or, off the group's loops (where sessions start attempts), the
/// next one in turn. The pool hands the request the idle connection on that
/// loop if there is one, and otherwise one on another loop — whose every
/// read is then handed over to the delegate's loop. A client that starts
/// its next request from the previous one's handler has one idle connection,
/// and with `.indifferent` half of its requests would land on the other
/// loop.
///
/// So an attempt started while none of the transport's attempts runs asks
/// for the `home` loop (`.delegate(on:)`: a preference, never a
/// requirement), where the connections such quiet traffic opens live; while
/// others run it gets the loop `.indifferent` would pick, spreading busy
/// traffic over every loop of the group as AsyncHTTPClient does. Knowing
/// the loop first lets the transport hand the request to the client on
/// that loop: the client's own hop there and the attempt's set-up (its
/// idle timeout) then share one wake-up of the loop.
final class EventLoopAffinity: Sendable {
    private let group: any EventLoopGroup
    private let home: any EventLoop
    /// Attempts started and not ended yet.
    private let running = Atomic(0)

    init(group: any EventLoopGroup) {
        self.group = group
        home = group.next()
    }

    /// The loop an attempt about to start runs on, and the preference that
    /// says so to AsyncHTTPClient; pair with ``ended()``.
    func started() -> (loop: any EventLoop, preference: HTTPClient.EventLoopPreference) {
        let quiet = running.wrappingAdd(1, ordering: .relaxed).oldValue == 0
        // `any()`: the calling thread's loop when it is one of the group's
        // (what `.indifferent` picks), otherwise the next one in turn.
        let any = group.any()
        let loop = quiet && !any.inEventLoop ? home : any
        return (loop, .delegate(on: loop))
    }

    /// An attempt ``started()`` ended.
    func ended() {
        running.wrappingSubtract(1, ordering: .relaxed)
    }
}
