import Foundation

/// When a request started and when its response was complete.
///
/// Also reachable as `DataResponse.Timing`.
public struct ResponseTiming: Sendable, Equatable, CustomStringConvertible {
    /// When the request was started (wall clock).
    public let start: Date
    /// When the response was complete, or the request failed (wall clock).
    public let end: Date

    /// Creates a timing.
    ///
    /// - Parameters:
    ///   - start: When the request started.
    ///   - end: When it finished.
    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }

    /// `end - start`, in seconds (never negative).
    public var duration: TimeInterval {
        max(0, end.timeIntervalSince(start))
    }

    /// The duration in seconds with millisecond precision, e.g. `"0.123s"`.
    public var description: String {
        let rounded = (duration * 1000).rounded()
        guard rounded < 1e15 else { return "\(duration)s" }  // also infinity and NaN
        let milliseconds = Int(rounded)
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)s"
    }
}
