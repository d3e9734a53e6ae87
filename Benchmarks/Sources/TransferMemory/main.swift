// Resident memory during large transfers (issue 14), on both transports:
//
//     swift run --package-path Benchmarks -c release TransferMemory [--small] [filter…]
//
// One after another in this process, over URLSessionTransport and over
// AsyncHTTPClientTransport, against a LoopbackServer in the same process:
// a 1 GiB download to a file, a 1 GiB stream read with `streamingData()` and
// with `responseStream(on:)` (each chunk checked against the server's
// pattern), a 500 MiB file upload and a 500 MiB multipart upload (one file
// part; the server reads the body as it arrives and echoes its length and
// digest). Downloads and streams run twice: unpaced (the server writes as
// fast as the client reads) and paced (256 KiB every 4 ms, at most 64 MiB/s,
// as in the tests). Uploads are not paced: the client is the producer.
//
// Each row is the growth of resident memory (the peak, sampled every 10 ms
// from /proc/self/statm, minus the figure before the transfer, taken after
// malloc_trim) and the throughput. The target is ≤ 32 MiB of growth.
// Each transport first makes one small download, not measured (its threads
// and connection pool start then). `--small` divides the sizes by 16 (a quick check); each other argument
// keeps only the rows whose label contains it (e.g. `AHC`, `paced`, `upload`).
import DeferredQueue
import DeferredQueueAsyncHTTPClient
import DeferredQueueTesting
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

let arguments = CommandLine.arguments.dropFirst()
let divisor: Int64 = arguments.contains("--small") ? 16 : 1
let filters = arguments.filter { $0 != "--small" }.map { $0.lowercased() }
let downloadLength: Int64 = (1 << 30) / divisor
let uploadLength: Int64 = (500 << 20) / divisor
let handlerQueue = DispatchQueue(label: "TransferMemory.handlers")

/// Serves the generated bodies: `/unpaced` and `/paced`.
let bodyServer = try LoopbackServer { request in
    .generated(length: downloadLength, chunkSize: 256 << 10, interval: request.path == "/paced" ? 0.004 : 0)
}
/// Serves the 1 MiB warm-up download.
let smallServer = try LoopbackServer { _ in .generated(length: 1 << 20) }
/// Reads uploads as they arrive (keeping 1 MiB) and echoes their length and digest.
let uploadServer = try LoopbackServer(bodyBufferLimit: 1 << 20, oversizedBodies: .truncate) { request in
    request.path == "/parts" ? .multipartEcho(request) : .echo(request)
}

/// The file the uploads send: `uploadLength` bytes of the server's pattern.
let uploadFile = FileManager.default.temporaryDirectory.appendingPathComponent("TransferMemory-\(UUID().uuidString)")
do {
    _ = FileManager.default.createFile(atPath: uploadFile.path, contents: nil)
    let handle = try FileHandle(forWritingTo: uploadFile)
    var offset: Int64 = 0
    while offset < uploadLength {
        let end = min(uploadLength, offset + (4 << 20))
        try handle.write(contentsOf: GeneratedContent.pattern.bytes(in: offset..<end))
        offset = end
    }
    try handle.close()
}
defer { try? FileManager.default.removeItem(at: uploadFile) }
let uploadDigest = BodyDigest.hexadecimal(try BodyDigest.ofFile(at: uploadFile))

/// `value` with `digits` decimals.
func fixed(_ value: Double, _ digits: Int = 1) -> String {
    String(format: "%.\(digits)f", value)
}

/// One row of the results.
struct Row {
    let label: String
    let transfer: Transfer
    let transport: String
    let pacing: String
    let mebibytes: Int64
    let growth: Double
    let retained: Double
    let throughput: Double
}

let transports: [(name: String, session: Session)] = [
    ("URLSession", Session(configuration: .default)),
    ("AHC", Session(transport: AsyncHTTPClientTransport())),
]
var rows: [Row] = []
print("resident memory at start: \(String(format: "%.1f", ResidentMemory.mebibytes() ?? 0)) MiB; target: growth ≤ 32 MiB")
for (transportName, session) in transports {
    // One small download first, not measured: a transport's first request
    // starts its threads and connection pool, which is not the transfer's cost.
    let warmUp = await withCheckedContinuation { continuation in
        session.download(smallServer.url("/")).responseURL(queue: handlerQueue) { continuation.resume(returning: $0) }
    }
    if let file = warmUp.value { try? FileManager.default.removeItem(at: file) }
    for pacing in ["unpaced", "paced"] {
        for transfer in Transfer.allCases where !(transfer.isUpload && pacing == "paced") {
            let pacingLabel = transfer.isUpload ? "n/a" : pacing
            let label = "\(transportName) \(pacingLabel) \(transfer.rawValue)"
            guard filters.allSatisfy({ label.lowercased().contains($0) }) else { continue }
            let length = transfer.isUpload ? uploadLength : downloadLength
            let url = transfer.isUpload
                ? uploadServer.url(transfer == .multipartUpload ? "/parts" : "/")
                : bodyServer.url("/\(pacing)")
            ResidentMemory.trim()
            let before = ResidentMemory.mebibytes() ?? 0
            let peak = PeakResident()
            let start = DispatchTime.now().uptimeNanoseconds
            try await transfer.run(session: session, url: url, length: length, file: uploadFile, digest: uploadDigest, queue: handlerQueue)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let growth = peak.stop() - before
            ResidentMemory.trim()
            let retained = (ResidentMemory.mebibytes() ?? 0) - before
            let row = Row(
                label: label, transfer: transfer, transport: transportName, pacing: pacingLabel, mebibytes: length >> 20,
                growth: growth, retained: retained, throughput: Double(length >> 20) / seconds
            )
            rows.append(row)
            print("\(label): \(row.mebibytes) MiB, growth \(fixed(row.growth)) MiB (\(fixed(row.retained)) MiB after), \(fixed(row.throughput, 0)) MiB/s")
        }
    }
}

print("\n| transfer | transport | server | growth (MiB) | retained after (MiB) | MiB/s |")
print("|---|---|---|---:|---:|---:|")
for row in rows {
    print("| \(row.transfer.rawValue) \(row.mebibytes) MiB | \(row.transport) | \(row.pacing) | \(fixed(row.growth)) | \(fixed(row.retained)) | \(fixed(row.throughput, 0)) |")
}
