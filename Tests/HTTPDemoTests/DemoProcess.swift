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

    static func run(_ arguments: [String], deadline seconds: Double = 60) async throws -> DemoRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "COLUMNS")
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killed = Atomic<Bool>(false)
        let watchdog = DispatchWorkItem {
            guard process.isRunning else { return }
            killed.store(true, ordering: .relaxed)
            process.terminate()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: watchdog)
        async let stdout = readAll(out.fileHandleForReading)
        async let stderr = readAll(err.fileHandleForReading)
        let (outData, errData) = await (stdout, stderr)
        let status = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
        watchdog.cancel()
        let timedOut = killed.load(ordering: .relaxed)
        return DemoRun(
            exitCode: status,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            timedOut: timedOut
        )
    }

    private static func readAll(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: handle.readDataToEndOfFile())
            }
        }
    }
}
