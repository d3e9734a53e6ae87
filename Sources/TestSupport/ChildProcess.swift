#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Runs a tool to completion with `posix_spawn`, its standard output written
/// to `output` (standard input and error: `/dev/null`).
///
/// Not Foundation's `Process`: under AddressSanitizer, `Process.run()`
/// overflows a heap buffer while listing `/proc/self/fd`
/// (`findMaximumOpenFromProcSelfFD`) when the test process has many
/// descriptors open, as it has with every suite's loopback servers running.
///
/// - Returns: The tool's exit status (or the signal that killed it).
public func runTool(_ executable: URL, _ arguments: [String], output: URL) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
}
