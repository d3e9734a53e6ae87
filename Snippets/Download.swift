// Download a file to disk as it arrives, showing progress.
// Run: swift run Download [url]
import DeferredQueue
import Foundation

let url = CommandLine.arguments.dropFirst().first ?? "https://www.swift.org/"

// The body goes to a temporary file as it arrives; by default the finished
// file stays in the temporary directory, and is yours to move or remove.
let file: URL? = await withCheckedContinuation { done in
    download(url)
        .downloadProgress { progress in print("received", progress) }   // on .main, run by the async main
        .validate()
        .responseURL { response in
            switch response.result {
            case .success(let fileURL): done.resume(returning: fileURL)
            case .failure(let error): print(error); done.resume(returning: nil)
            }
        }
}
if let file {
    let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
    print("\(size) bytes in \(file.path)")
    try FileManager.default.removeItem(at: file)
}
