import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A spinner on stderr while a response takes longer than a second, drawn
/// only when a person is watching (``Terminal/isInteractive``).
///
/// Each frame redraws one line in place: carriage return, the text cut to
/// the terminal's width, erase to the end of the line. A line as wide as the
/// terminal would wrap, and the carriage return would then go back only to
/// its last row, so every frame would leave a line behind; it is cut one
/// column short, as a terminal may wrap on writing the last column.
final class ProgressIndicator: Sendable {
    private let queue = DispatchQueue(label: "HTTPDemo.progress")
    private let label: String
    private let start = DispatchTime.now()
    /// Frames drawn so far; negative once stopped.
    private let frame = Atomic<Int>(0)
    private static let frames = Array("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

    init?(label: String) {
        guard Terminal.isInteractive else { return nil }
        self.label = label
        queue.asyncAfter(deadline: .now() + 1) { self.draw() }
    }

    private func draw() {
        let index = frame.add(1, ordering: .relaxed).newValue
        guard index > 0 else { return }
        standardError("\r" + Self.line(frame: index, seconds: elapsed, label: label, columns: Terminal.columns(of: STDERR_FILENO) ?? 80) + "\u{1B}[K")
        queue.asyncAfter(deadline: .now() + 0.1) { self.draw() }
    }

    private var elapsed: Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// One frame's text, at most `columns - 1` wide: the time comes before
    /// the label, so cutting the label keeps it.
    static func line(frame: Int, seconds: Double, label: String, columns: Int) -> String {
        let tenths = Int(seconds * 10)
        let text = "\(frames[frame % frames.count]) \(tenths / 10).\(tenths % 10) s  \(label)"
        return TextWidth.truncate(text, to: max(1, columns - 1))
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
