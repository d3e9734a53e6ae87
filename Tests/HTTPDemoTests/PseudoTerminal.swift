#if canImport(Glibc)
import Glibc
#endif

/// A pseudo-terminal pair with a window size, so a child process sees a
/// real terminal (`isatty`, `TIOCGWINSZ`) while the test reads every byte
/// it draws from the primary side.
struct PseudoTerminal {
    /// The test's side: read what the child wrote.
    let primary: Int32
    /// The child's side: its stdin, stdout and stderr.
    let secondary: Int32

    init(columns: Int, rows: Int = 24) throws {
        var primary: Int32 = -1
        var secondary: Int32 = -1
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&primary, &secondary, nil, nil, &size) == 0 else { throw DemoSpawnError(errno: errno) }
        // Not inherited by demos spawned concurrently by other tests.
        _ = fcntl(primary, F_SETFD, FD_CLOEXEC)
        _ = fcntl(secondary, F_SETFD, FD_CLOEXEC)
        self.primary = primary
        self.secondary = secondary
    }
}
