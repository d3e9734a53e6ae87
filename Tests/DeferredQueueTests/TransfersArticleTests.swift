import Dispatch
import Foundation
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// The examples of the DocC article "Uploads, downloads and streams", run
/// against LoopbackServer (handlers on `handlerQueue` instead of `.main`).
@Suite("Transfers article examples")
struct TransfersArticleTests {
    struct Profile: Decodable, Sendable {
        struct Part: Decodable, Sendable { let name: String?; let filename: String? }
        let parts: [Part]
    }

    private static func server() throws -> LoopbackServer {
        try LoopbackServer { request in
            switch request.path {
            case "/profile": return .multipartEcho(request)
            case "/archive.zip": return .generated(length: 100_000)
            case "/events": return .chunked(chunks: ["a\n", "b\n", "c\n"].map { Data($0.utf8) }, interval: 0.01)
            default: return .text(String(decoding: request.body, as: UTF8.self).uppercased())
            }
        }
    }

    @Test func uploads() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = Session()
        let photoURL = try patternFile(length: 4_096)
        defer { try? FileManager.default.removeItem(at: photoURL) }
        let printed = Recorder<String>()
        let done = Latch(count: 3)
        session.upload(Data("ping".utf8), to: server.url("/")).responseString(queue: handlerQueue) {
            printed.append($0.value ?? ""); done.arrive()
        }
        let sent = Recorder<Int64>()
        session.upload(photoURL, to: server.url("/"), method: .put)
            .uploadProgress(queue: handlerQueue) { progress in sent.append(progress.completed) }
            .validate()
            .response(queue: handlerQueue) { _ in done.arrive() }
        session.upload(multipartFormData: { form in
            form.append(Data("Ada".utf8), withName: "name")
            form.append(photoURL, withName: "photo")
        }, to: server.url("/profile")).responseDecodable(of: Profile.self, queue: handlerQueue) { response in
            printed.append(response.value?.parts.map { $0.name ?? "?" }.joined(separator: ",") ?? "\(String(describing: response.error))")
            done.arrive()
        }
        #expect(await done.wait())
        #expect(Set(printed.events) == ["PING", "name,photo"])
        #expect(sent.events.last == 4_096)
    }

    @Test func downloads() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = Session()
        let done = Latch()
        let file = Recorder<URL>()
        let destination: DownloadRequest.Destination = { temporaryURL, response in
            let (url, options) = DownloadRequest.suggestedDownloadDestination(for: .cachesDirectory)(temporaryURL, response)
            return (url.deletingLastPathComponent().appendingPathComponent("\(UUID().uuidString)-\(url.lastPathComponent)"), options)
        }
        session.download(server.url("/archive.zip"), to: destination)
            .downloadProgress(queue: handlerQueue) { _ in }
            .responseURL(queue: handlerQueue) { response in
                if let url = response.fileURL { file.append(url) }
                done.arrive()
            }
        #expect(await done.wait())
        let url = try #require(file.events.first)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(url.lastPathComponent.hasSuffix("archive.zip"))
        #expect(try Data(contentsOf: url).count == 100_000)
    }

    @Test func streams() async throws {
        let server = try Self.server()
        defer { server.shutdown() }
        let session = Session()
        let handled = Recorder<String>()
        let done = Latch()
        session.streamRequest(server.url("/events"))
            .validate()
            .responseStream(on: handlerQueue) { stream in
                switch stream.event {
                case .stream(.success(let chunk)): handled.append(String(decoding: chunk, as: UTF8.self))
                case .complete(let completion):
                    handled.append(completion.error.map { "\($0)" } ?? "done")
                    done.arrive()
                }
            }
        #expect(await done.wait())
        #expect(handled.events.joined() == "a\nb\nc\ndone")
        var text = ""
        for try await chunk in session.streamRequest(server.url("/events")).streamingData() {
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text == "a\nb\nc\n")
    }
}
