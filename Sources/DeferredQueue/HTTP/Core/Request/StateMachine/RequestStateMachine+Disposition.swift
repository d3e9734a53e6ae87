import Foundation

// `onHTTPResponse(on:perform:)`: the body waits while the handler decides on
// the head, as URLSession waits for its delegate's disposition.

/// A body event held back until the head's disposition arrives.
enum HeldEvent: Sendable {
    case chunk(Data, handled: (@Sendable () -> Void)?)
    case completion(body: Data?, error: (any Error)?)
}

extension RequestStateMachine {
    /// Attempt `number`'s head went to an `onHTTPResponse` handler: hold its body.
    mutating func awaitDisposition(attempt number: Int) {
        updateAttempt(inFlight: number) { attempt in
            attempt.awaitsDisposition = true
            if attempt.held == nil { attempt.held = [] }
        }
    }

    enum HoldAction: Sendable {
        /// Not held: handle the event now.
        case handle
        /// Held until the disposition arrives or the request is resumed.
        case held
        /// Held past the attempt's `holdLimit` by a transport that cannot be
        /// held back: fail the request with this error.
        case overflow(HTTPError)
    }

    /// Holds `event` of attempt `number` while its head awaits a
    /// disposition or the request is suspended.
    mutating func hold(_ event: HeldEvent, attempt number: Int) -> HoldAction {
        updateAttempt(inFlight: number) { attempt -> HoldAction in
            guard attempt.held != nil else { return .handle }
            attempt.held?.append(event)
            if case .chunk(let data, handled: nil) = event {
                attempt.heldBytes += data.count
                if attempt.heldBytes > attempt.holdLimit { return .overflow(.responseTooLarge(limit: attempt.holdLimit)) }
            }
            return .held
        } ?? .handle
    }

    /// Whether attempt `number`'s completion may be handled off the callback
    /// queue (`Request.attempt(_:didCompleteDirectly:body:)`): it is the
    /// attempt in flight, nothing holds its events or would ask for a
    /// disposition, and its validators check the head alone — and, when a
    /// retrier may be asked about a failed verdict (`mayRetry`), there are none.
    func completesDirectly(attempt number: Int, mayRetry: Bool) -> Bool {
        guard !isSuspended, httpResponseHandler == nil, mayRetry ? validators.isEmpty : validators.allSatisfy(\.inline),
              case .running(let attempt) = state, attempt.isInFlight(number)
        else { return false }
        return attempt.held == nil && !attempt.awaitsDisposition
    }

    /// The disposition arrived: the events held for attempt `number`, to
    /// replay (or drop) in order — none while the request is suspended.
    mutating func disposed(attempt number: Int) -> [HeldEvent] {
        updateAttempt(inFlight: number) { $0.awaitsDisposition = false }
        return releaseHeld(attempt: number)
    }

    /// The events held for attempt `number`, once nothing holds them any
    /// more (no disposition awaited, not suspended), to replay in order.
    mutating func releaseHeld(attempt number: Int) -> [HeldEvent] {
        let suspended = isSuspended
        return updateAttempt(inFlight: number) { attempt -> [HeldEvent] in
            guard !suspended, !attempt.awaitsDisposition else { return [] }
            defer { (attempt.held, attempt.heldBytes) = (nil, 0) }
            return attempt.held ?? []
        } ?? []
    }
}
