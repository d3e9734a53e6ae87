import AsyncHTTPClient
import NIOCore
import NIOPosix
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
/// others run it stays `.indifferent`, spreading busy traffic over every
/// loop of the group as AsyncHTTPClient does.
final class EventLoopAffinity: Sendable {
    private let home: any EventLoop
    /// Attempts started and not ended yet.
    private let running = Atomic(0)

    init(group: any EventLoopGroup) {
        home = group.next()
    }

    /// The preference of an attempt about to start; pair with ``ended()``.
    func started() -> HTTPClient.EventLoopPreference {
        let quiet = running.wrappingAdd(1, ordering: .relaxed).oldValue == 0
        // On one of the group's loops `.indifferent` already means that loop.
        guard quiet, MultiThreadedEventLoopGroup.currentEventLoop == nil else { return .indifferent }
        return .delegate(on: home)
    }

    /// An attempt ``started()`` ended.
    func ended() {
        running.wrappingSubtract(1, ordering: .relaxed)
    }
}
