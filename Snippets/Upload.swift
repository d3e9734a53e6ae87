// Upload a multipart form, a field and a file streamed from disk, showing progress.
// Run: swift run Upload [url]   (default: httpbin.org's echo endpoint)
import DeferredQueue
import Foundation

let url = CommandLine.arguments.dropFirst().first ?? "https://httpbin.org/post"

// A file to send: the form reads it as it is sent, never whole into memory.
let photoURL = FileManager.default.temporaryDirectory.appendingPathComponent("photo.jpg")
try Data(repeating: 0xFF, count: 256 * 1024).write(to: photoURL)
defer { try? FileManager.default.removeItem(at: photoURL) }

do {
    let reply = try await upload(multipartFormData: { form in
        form.append(Data("Ada".utf8), withName: "name")
        form.append(photoURL, withName: "photo")      // file name and MIME type from the file
    }, to: url)
        .uploadProgress { progress in print("sent", progress) }   // on .main, run by the async main
        .validate()
        .serializingString()
        .value
    print(reply.prefix(200))
} catch {
    print(error)   // an HTTPError whose description says what happened
}
