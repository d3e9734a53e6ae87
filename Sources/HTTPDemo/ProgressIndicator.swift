import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A spinner on stderr, shown only when stderr is a terminal and the
/// response takes longer than a second.
final class ProgressIndicator: Sendable {
    private let queue = DispatchQueue(label: "HTTPDemo.progress")
    private let label: String
    private let start = DispatchTime.now()
    /// Frames drawn so far; negative once stopped.
    private let frame = Atomic<Int>(0)
    private static let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    init?(label: String) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        self.label = label
        queue.asyncAfter(deadline: .now() + 1) { self.draw() }
    }

    private func draw() {
        let index = frame.add(1, ordering: .relaxed).newValue
        guard index > 0 else { return }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let tenths = Int(seconds * 10)
        standardError("\r\(Self.frames[index % Self.frames.count]) \(label) \(tenths / 10).\(tenths % 10) s")
        queue.asyncAfter(deadline: .now() + 0.1) { self.draw() }
    }

    /// Stops the spinner and clears its line (if it was drawn).
    func stop() {
        queue.sync {
            let drawn = frame.exchange(Int.min / 2, ordering: .relaxed)
            if drawn > 0 { standardError("\r\u{1B}[K") }
        }
    }
}

/// Writes `text` to standard error, unbuffered.
func standardError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
