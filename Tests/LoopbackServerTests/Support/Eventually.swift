import Dispatch

/// Polls `condition` until it holds or `seconds` pass (a deadline against
/// hangs, not a timing assertion). Returns whether it held.
func eventually(within seconds: Double = 120, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return false }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return true
}
