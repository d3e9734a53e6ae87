import Dispatch

extension DispatchTime {
    /// `now + seconds`, with bad input made safe (libdispatch traps on
    /// out-of-range conversions). `nil` for an infinite wait.
    @usableFromInline
    static func after(seconds: Double) -> DispatchTime? {
        if seconds.isNaN || seconds <= 0 { return .now() }
        // Beyond ~30 years is "never" for any program.
        guard seconds < 1e9 else { return nil }
        return .now() + .nanoseconds(Int(seconds * 1e9))
    }
}

extension DispatchTime {
    /// The seconds from this time until now (0 if the clock reads earlier).
    var secondsElapsed: Double {
        let now = DispatchTime.now().uptimeNanoseconds
        return now > uptimeNanoseconds ? Double(now - uptimeNanoseconds) / 1e9 : 0
    }
}
