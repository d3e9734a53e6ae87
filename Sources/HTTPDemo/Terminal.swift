import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the demo knows about the terminal it writes to.
enum Terminal {
    /// Whether a person is watching: stdout and stderr are both terminals.
    /// Output headed for a pipe or a file gets no spinner and no escape codes.
    static var isInteractive: Bool {
        isatty(STDOUT_FILENO) == 1 && isatty(STDERR_FILENO) == 1
    }

    /// The width of the terminal `descriptor` writes to: the kernel's
    /// window size (it follows resizes), else `COLUMNS` (often stale, and
    /// not exported by every shell), else `nil`.
    static func columns(of descriptor: Int32) -> Int? {
        var size = winsize()
        if isatty(descriptor) == 1, ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(text), value > 0 { return value }
        return nil
    }
}
