#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Synchronization

/// Runs the built `HTTPDemo` executable as a child process and captures its
/// output, with a guard deadline so a hang fails the test instead of the run.
struct DemoRun: Sendable {
    let exitCode: Int32
    let stdout: String
    let stderr: String
    let timedOut: Bool

    /// The directory holding the test bundle also holds the built executables.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0])
            .deletingLastPathComponent()
            .appendingPathComponent("HTTPDemo")
    }

    /// Spawns the demo with `posix_spawn` rather than Foundation's `Process`:
    /// under AddressSanitizer, `Process.run()` overflows a heap buffer while
    /// listing `/proc/self/fd` (`findMaximumOpenFromProcSelfFD`) when the
    /// test process has many descriptors open, as it does with every suite's
    /// loopback servers running at once.
    ///
    /// - Parameters:
    ///   - environment: Variables to set (a `nil` value removes one) on top
    ///     of this process's environment, which never passes `COLUMNS` on.
    ///   - stdio: Where stdout and stderr go: a pipe each, or a
    ///     pseudo-terminal (see ``Stdio``).
    ///   - arguments: The demo's command line; unless it sets `--timeout`,
    ///     ``patientTimeout`` goes first.
    static func run(
        _ arguments: [String], environment overrides: [String: String?] = [:], stdio: Stdio = .pipes,
        deadline seconds: Double = 180
    ) async throws -> DemoRun {
        let arguments = arguments.contains("--timeout") ? arguments : patientTimeout + arguments
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        switch stdio {
        case .terminal(let columns):
            let terminal = try PseudoTerminal(columns: columns)
            outPipe = [terminal.primary, terminal.secondary]
        case .pipes, .stderrOnTerminal:
            guard pipe(&outPipe) == 0 else { throw DemoSpawnError(errno: errno) }
            // Not inherited by demos spawned concurrently by other tests.
            for descriptor in outPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        switch stdio {
        case .terminal: break
        case .stderrOnTerminal(let columns):
            let terminal = try PseudoTerminal(columns: columns)
            errPipe = [terminal.primary, terminal.secondary]
        case .pipes:
            guard pipe(&errPipe) == 0 else { throw DemoSpawnError(errno: errno) }
            for descriptor in errPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if case .terminal = stdio {
            for standard: Int32 in 0...2 { posix_spawn_file_actions_adddup2(&actions, outPipe[1], standard) }
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        }
        // The child gets nothing else of this process (sockets of other tests).
        _ = Self.addCloseFrom?(&actions, 3)
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "COLUMNS")
        // A sanitizer-built demo checks for leaks at `exit`, while its request
        // may still be being torn down on another thread. LeakSanitizer cannot
        // follow a reference a Swift enum keeps in spare bits (`Data`'s
        // storage, for one), so such live objects were reported as leaks at
        // random, failing the exit-code tests. The library's leaks are checked
        // in this process, whose suites see their requests end.
        environment["LSAN_OPTIONS"] = (environment["LSAN_OPTIONS"].map { $0 + ":" } ?? "") + "detect_leaks=0"
        for (name, value) in overrides { environment[name] = value }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        close(outPipe[1])
        if errPipe[1] >= 0 { close(errPipe[1]) }
        guard spawned == 0 else {
            close(outPipe[0])
            if errPipe[0] >= 0 { close(errPipe[0]) }
            throw DemoSpawnError(errno: spawned)
        }
        let killed = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        let child = pid
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            guard !finished.load(ordering: .acquiring) else { return }
            killed.store(true, ordering: .relaxed)
            kill(child, SIGTERM)
        }
        async let stdout = readAll(outPipe[0])
        async let stderr = readAll(errPipe[0])
        let (outData, errData) = await (stdout, stderr)
        let status = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(child, &status, 0) == -1 && errno == EINTR {}
                finished.store(true, ordering: .releasing)
                // Exited: the exit code; killed by a signal: the signal (as Process reports it).
                continuation.resume(returning: status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f)
            }
        }
        return DemoRun(
            exitCode: status,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            timedOut: killed.load(ordering: .relaxed)
        )
    }

    /// The demo's `--timeout` when a test sets none. Its default (30 s) is
    /// shorter than the stalls of a sanitizer-built demo on a machine busy
    /// with every other suite. (The loopback server answering it no longer
    /// waits behind those suites' queues: see `DispatchQueue.serverQueue`.)
    static let patientTimeout = ["--timeout", "120"]

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which the
    /// Glibc module does not export.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? =
        dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
            unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }

    /// Everything readable from `descriptor` until end of file (or, on a
    /// pseudo-terminal, `EIO` once the child's side is closed); closes it.
    /// `-1`: nothing.
    private static func readAll(_ descriptor: Int32) async -> Data {
        guard descriptor >= 0 else { return Data() }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var data = Data()
                var buffer = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    if count > 0 {
                        data.append(contentsOf: buffer[0..<count])
                    } else if count < 0, errno == EINTR {
                        continue
                    } else {
                        break
                    }
                }
                close(descriptor)
                continuation.resume(returning: data)
            }
        }
    }
}

/// Where a demo's output goes.
enum Stdio: Sendable {
    /// A pipe for stdout, another for stderr; stdin is `/dev/null`.
    case pipes
    /// One pseudo-terminal this many columns wide as stdin, stdout and
    /// stderr: everything is in `stdout`, with `\n` sent as `\r\n`.
    case terminal(columns: Int)
    /// stdout to a pipe (`… | less`), stderr on a pseudo-terminal.
    case stderrOnTerminal(columns: Int)
}

/// `posix_spawn` or `pipe2` failed.
struct DemoSpawnError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "could not start HTTPDemo: \(String(cString: strerror(errno)))" }
}
