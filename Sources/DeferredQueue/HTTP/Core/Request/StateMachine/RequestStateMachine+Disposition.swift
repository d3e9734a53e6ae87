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
        updateAttempt(inFlight: number) { $0.held = [] }
    }

    /// Holds `event` of attempt `number` when its head awaits a disposition;
    /// `false`: handle it now.
    mutating func hold(_ event: HeldEvent, attempt number: Int) -> Bool {
        updateAttempt(inFlight: number) { attempt -> Bool in
            guard attempt.held != nil else { return false }
            attempt.held?.append(event)
            return true
        } ?? false
    }

    /// The disposition arrived: the events held for attempt `number`, to
    /// replay (or drop) in order.
    mutating func releaseHeld(attempt number: Int) -> [HeldEvent] {
        updateAttempt(inFlight: number) { attempt -> [HeldEvent] in
            defer { attempt.held = nil }
            return attempt.held ?? []
        } ?? []
    }
}
