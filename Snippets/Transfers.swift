// The examples of the DocC article "Uploads, downloads and streams", as one program.
// Run: swift run Transfers [base-url]   (default: httpbin.org, which echoes uploads)
import DeferredQueue
import Foundation
import Synchronization

struct Profile: Decodable, Sendable { let form: [String: String] }

func handle(_ chunk: Data) { print("chunk of", chunk.count, "bytes") }

let base = CommandLine.arguments.dropFirst().first ?? "https://httpbin.org"
let url = "\(base)/anything"
let archiveURL = "\(base)/bytes/102400"
let eventsURL = "\(base)/stream/3"
let photoURL = FileManager.default.temporaryDirectory.appendingPathComponent("photo.jpg")
let videoURL = FileManager.default.temporaryDirectory.appendingPathComponent("video.mp4")
try Data(repeating: 0xFF, count: 64 * 1024).write(to: photoURL)
try Data(repeating: 0x00, count: 256 * 1024).write(to: videoURL)

// snippet.hide
@MainActor func uploads() async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let finished = Countdown(3) { done.resume() }
// snippet.show
// snippet.uploads
let session = Session()

// Data, a file streamed from disk, or a multipart/form-data form (RFC 7578).
session.upload(Data("ping".utf8), to: url).responseString { print($0.value ?? "") }
// snippet.hide
    .response { _ in finished.arrive() }
// snippet.show
session.upload(videoURL, to: url, method: .put)
    .uploadProgress { progress in print("sent", progress) }
    .validate()
    .response { _ in }
// snippet.hide
    .response { _ in finished.arrive() }
// snippet.show
session.upload(multipartFormData: { form in
    form.append(Data("Ada".utf8), withName: "name")
    form.append(photoURL, withName: "photo")          // file name and MIME type from the file
}, to: url).responseDecodable(of: Profile.self) { _ in }
// snippet.end
// snippet.hide
    .response { _ in finished.arrive() }
    }
}

@MainActor func downloads() async {
    let session = Session()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
// snippet.show
// snippet.downloads
session.download(archiveURL, to: DownloadRequest.suggestedDownloadDestination(for: .cachesDirectory))
    .downloadProgress { progress in print(progress) }
    .responseURL { response in print(response.fileURL?.path ?? "\(response.error!)") }
// snippet.end
// snippet.hide
    .responseURL { _ in done.resume() }
    }
    do {
// snippet.show
// snippet.asyncDownloads
let file = try await session.download(archiveURL).validate().serializingDownloadedFileURL().value
let manifest = try await session.download(archiveURL).serializingDownload(using: DataResponseSerializer()).value
print(file.path, manifest.count)
// snippet.end
// snippet.resume
// A download cut short (or cancelled with `cancel(producingResumeData: true)`)
// keeps what arrived; its resume data asks the server for the rest.
let first = try await session.download(archiveURL).serializingResponse(using: DataResponseSerializer()).value
if let resumeData = first.resumeData {
    // Bytes: store them to resume in a later run of the program, too.
    let rest = try await session.download(resumingWith: resumeData).serializingDownloadedFileURL().value
    print("resumed into", rest.path)
}
// snippet.end
// snippet.hide
    } catch {
        print(error)
    }
}

@MainActor func streams() async throws {
    let session = Session()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
// snippet.show
// snippet.streams
session.streamRequest(eventsURL)
    .validate()
    .responseStream { stream in
        switch stream.event {
        case .stream(.success(let chunk)): handle(chunk)
        case .complete(let completion): print(completion.error.map { "\($0)" } ?? "done")
// snippet.hide
            done.resume()
// snippet.show
        }
    }
// snippet.hide
    }
// snippet.show

for try await chunk in session.streamRequest(eventsURL).streamingData() {
    handle(chunk)     // cancelling this Task cancels the request
}

// Chunks as values: here one JSON object per chunk (httpbin's /stream).
struct Event: Decodable, Sendable { let id: Int }
session.streamRequest(eventsURL).responseStreamDecodable(of: Event.self) { stream in
    guard let event = stream.value else { return }
    print("event", event.id)
    if event.id == 1 { stream.cancel() }   // a handler may stop the stream
}
// snippet.end
// snippet.hide
}

/// Calls `body` after `count` arrivals.
final class Countdown: Sendable {
    private let remaining: Mutex<Int>
    private let body: @Sendable () -> Void
    init(_ count: Int, _ body: @escaping @Sendable () -> Void) { remaining = Mutex(count); self.body = body }
    func arrive() { if remaining.withLock({ $0 -= 1; return $0 }) == 0 { body() } }
}

await uploads()
await downloads()
do { try await streams() } catch { print(error) }
try? FileManager.default.removeItem(at: photoURL)
try? FileManager.default.removeItem(at: videoURL)
