import Dispatch
import Foundation
@testable import LoopbackServer
import Synchronization
import Testing

/// A server keeps answering while the process has woken more serial queues
/// than GCD's default root queue has threads for, as the stress suites do:
/// its queues wait on a root queue of their own, not behind all of those.
@Suite("LoopbackServer: answers while GCD's default pool is flooded")
struct FloodedPoolTests {
    /// In a process of its own (`.ci/run` runs it with
    /// `DEFERREDQUEUE_RUN_ALONE=1`): while it holds the default pool, every
    /// other test's queues wait too, and in a sanitized full run they waited
    /// past their requests' timeouts.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DEFERREDQUEUE_RUN_ALONE"] == "1"))
    func aRequestIsAnsweredWhileEveryDefaultQueueThreadIsBlocked() async throws {
        let server = try LoopbackServer { _ in .text("served") }
        defer { server.shutdown() }
        // More than the default root's 255 threads: the last ones wait in its
        // list, and so would a server queue on the same root.
        let floodSize = 400
        let started = Atomic<Int>(0)
        let gate = DispatchSemaphore(value: 0)
        let flood = DispatchGroup()
        for index in 0..<floodSize {
            DispatchQueue(label: "flood.\(index)").async(group: flood) {
                started.add(1, ordering: .relaxed)
                gate.wait()
            }
        }
        defer {
            for _ in 0..<floodSize { gate.signal() }
            flood.wait()
        }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        try client.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        // Blocks this task's thread (a cooperative one, not the flooded root's)
        // until the reply, or fails after RawClient's 20 s.
        let response = try client.readResponse()
        let startedWhenAnswered = started.load(ordering: .relaxed)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "served")
        #expect(startedWhenAnswered < floodSize, "the server answered only once every flooding block had a thread")
    }
}
