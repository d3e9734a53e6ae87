import Dispatch

/// Polls `condition` until it holds or `seconds` pass; returns whether it held.
///
/// For conditions with no event to wait on (a server's connection count, a
/// weak reference going `nil`). The deadline is a guard against hangs, not a
/// timing assertion.
public func eventually(within seconds: Double = 120, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, seconds) * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return false }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return true
}
