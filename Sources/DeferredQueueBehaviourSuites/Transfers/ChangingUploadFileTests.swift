import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import DeferredQueueTesting
import TestSupport
import Testing
@testable import DeferredQueue

/// A file that changes length while it is uploaded: what was announced as
/// `Content-Length` is the most that may follow the head, and the request
/// fails rather than reporting the upload done.
@Suite("Uploads of a file that changes length while it is sent", .timeLimit(.minutes(3)))
struct ChangingUploadFileTests {
    static let length = 16 << 20

    /// Uploads a file of ``length`` bytes to a server that holds the body
    /// back, lets `change` alter the file meanwhile, then releases it.
    /// `timeout`: the attempt's idle timeout, which runs while the server
    /// holds the body back (long, so that a loaded machine does not end the
    /// upload before the file changed).
    /// `within`: how long the failure may take once the server reads again
    /// (a deadline against hangs, shorter than `timeout` where the failure
    /// must not wait for it).
    func upload(
        timeout: Double = 120, within: Double = 120, changing change: (FileHandle) throws -> Void
    ) async throws -> (error: HTTPError?, server: HeldUploadServer) {
        let server = try HeldUploadServer()
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("log")
        try Data(repeating: UInt8(ascii: "a"), count: Self.length).write(to: file)
        let response = Recorder<DataResponse<Data?, HTTPError>>()
        let request = TestTransport.makeSession().upload(file, to: server.url, timeout: timeout)
        request.response(queue: handlerQueue) { response.append($0) }
        #expect(await server.headArrived.wait())
        let handle = try FileHandle(forWritingTo: file)
        try change(handle)
        try handle.close()
        server.release()
        #expect(await eventually(within: within) { response.count == 1 }, "\(TestTransport.name): no response")
        #expect(await server.finished.wait())
        return (response.events.first?.error, server)
    }

    /// URLSession read a growing file to its end and sent every byte after
    /// the body: a server reads them as requests of their own, and the
    /// upload reported success. Now exactly the announced length is sent.
    @Test func aFileThatGrowsFailsAndNothingPastItsLengthIsReadAsARequest() async throws {
        let (error, server) = try await upload { handle in
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(String(repeating: "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n", count: 30_000).utf8))
        }
        #expect(error?.urlError?.code == .requestBodyStreamExhausted, "\(TestTransport.name): \(String(describing: error))")
        #expect(server.head.contains("Content-Length: \(Self.length)") || server.head.contains("content-length: \(Self.length)"),
                "\(server.head)")
        // Never more than the announced length: what the file grew by never
        // follows it. URLSession sends all of it first; AsyncHTTPClient may
        // drop the last bytes still buffered for the connection as the
        // failing request closes it.
        if TestTransport.name == "URLSession" {
            #expect(server.bodyBytes == Int64(Self.length), "\(TestTransport.name): \(server.bodyBytes) bytes followed the head")
        } else {
            #expect(server.bodyBytes <= Int64(Self.length), "\(TestTransport.name): \(server.bodyBytes) bytes followed the head")
            #expect(server.bodyBytes > 0, "\(TestTransport.name): the body went out")
        }
    }

    /// URLSession stopped reading at the file's new end and waited for the
    /// response, the server for the rest of the body, until the request
    /// timed out (or, here, the server gave up reading after 60 s): the
    /// failure waited for either.
    @Test func aFileThatShrinksFailsBeforeTheTimeout() async throws {
        let (error, server) = try await upload(timeout: 300, within: 30) { handle in try handle.truncate(atOffset: 1 << 20) }
        #expect(error?.urlError?.code == .requestBodyStreamExhausted, "\(TestTransport.name): \(String(describing: error))")
        #expect(server.bodyBytes < Int64(Self.length))
    }
}
