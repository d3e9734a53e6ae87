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

extension Terminal {
    /// `text` safe to show on one line: a character that is a control
    /// (escape sequences included), an invisible format character (bidi
    /// overrides, zero-width spaces, byte-order marks) or a line or paragraph
    /// separator shows as a space, and one of more than 16 scalars (marks
    /// stacked without end) as U+FFFD. Text from a server, or from a command
    /// line, never moves the cursor, recolours, reorders or hides output.
    static func printable(_ text: some StringProtocol) -> String {
        String(text.map { character -> Character in
            let scalars = character.unicodeScalars
            guard let first = scalars.first else { return character }
            if hidden.contains(first.properties.generalCategory) || scalars.contains(where: { $0.properties.generalCategory == .control }) {
                return " "
            }
            return scalars.count > 16 ? "\u{FFFD}" : character
        })
    }

    /// JSON text with every DEL, C1 control, format character and line or
    /// paragraph separator escaped as `\uXXXX`: a JSON writer escapes only
    /// what lies below U+0020. Such a scalar can stand only inside a string
    /// of valid JSON, where the escape means the same.
    static func escapingInvisibles(inJSON json: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            // Below DEL, the writer escaped every control: those left are the layout's whitespace.
            guard scalar.value >= 0x7F, hidden.contains(scalar.properties.generalCategory) else {
                result.append(scalar)
                continue
            }
            for unit in String(scalar).utf16 {
                let hex = String(unit, radix: 16)
                result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            }
        }
        return String(result)
    }

    private static let hidden: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
}
