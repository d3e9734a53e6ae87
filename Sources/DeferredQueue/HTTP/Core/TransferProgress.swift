/// How much of a response body has arrived.
public struct TransferProgress: Sendable, Equatable, CustomStringConvertible {
    /// Bytes received so far.
    public let completed: Int64
    /// The total expected bytes, or `nil` when unknown (no `Content-Length`; URLSession's
    /// negative "unknown" size becomes `nil`).
    public let expected: Int64?

    /// Creates a progress value.
    ///
    /// - Parameters:
    ///   - completed: Bytes received so far.
    ///   - expected: The expected total; `nil` or a negative value means unknown.
    public init(completed: Int64, expected: Int64?) {
        self.completed = completed
        self.expected = expected.flatMap { $0 < 0 ? nil : $0 }
    }

    /// `completed / expected`, clamped to `0...1`; `nil` when the total is unknown or zero.
    public var fraction: Double? {
        guard let expected, expected > 0 else { return nil }
        return min(1, max(0, Double(completed) / Double(expected)))
    }

    /// ``fraction``, or 0 when the total is unknown: Foundation `Progress`'s
    /// `fractionCompleted`, for handlers written for Alamofire.
    public var fractionCompleted: Double { fraction ?? 0 }

    /// ``completed``: Foundation `Progress`'s name.
    public var completedUnitCount: Int64 { completed }

    /// ``expected``, or -1 when unknown: Foundation `Progress`'s name and
    /// convention for an indeterminate total.
    public var totalUnitCount: Int64 { expected ?? -1 }

    /// Whether the known total has arrived: Foundation `Progress`'s
    /// `isFinished` (`false` while the total is unknown or zero).
    public var isFinished: Bool {
        guard let expected, expected > 0 else { return false }
        return completed >= expected
    }

    /// E.g. `"512/1024 bytes (50%)"` or `"512 bytes"`.
    public var description: String {
        guard let expected else { return "\(completed) bytes" }
        let percent = fraction.map { " (\(Int(($0 * 100).rounded(.down)))%)" } ?? ""
        return "\(completed)/\(expected) bytes\(percent)"
    }
}
