import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Watches the file an upload task reads its body from, for one that
/// shrinks before it was all read.
///
/// corelibs ends a file's body at the file's new end, libcurl then waits
/// for the response while the server waits for the rest of the announced
/// `Content-Length`, and nothing is reported until the idle timeout: no
/// more body is sent, so no progress callback comes to notice it. Once a
/// second, while the body is not all read, the file's size is compared
/// with the length announced. (A file that grows is caught by the
/// progress callbacks: corelibs reads it past the length announced.)
final class BodyFileWatch: Sendable {
    let file: URL
    /// The attempt's URL, for the error.
    let url: URL?
    /// The progress callbacks' last figures, on the delegate queue; `-1`
    /// until the first (the length announced is corelibs' to measure).
    private let sent = Atomic<Int64>(0)
    private let announced = Atomic<Int64>(-1)

    init(file: URL, url: URL?) {
        self.file = file
        self.url = url
    }

    /// Records a progress callback's figures.
    func didSend(_ total: Int64, of expected: Int64) {
        sent.store(total, ordering: .relaxed)
        announced.store(expected, ordering: .relaxed)
    }

    /// Checks the file once a second on `queue` (the delegate queue, so
    /// that the check and the progress callbacks are ordered), until
    /// `check` answers `false`.
    func start(on queue: DispatchQueue, check: @escaping @Sendable (BodyFileWatch) -> Bool) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(250))
        // The handler holds the timer until it cancels it: nothing else need.
        timer.setEventHandler { if !check(self) { timer.cancel() } }
        timer.resume()
    }

    /// The length announced, when the file no longer has it while its body
    /// is still being read; `nil` otherwise.
    var changedLength: Int64? {
        let announced = announced.load(ordering: .relaxed)
        guard announced > 0, sent.load(ordering: .relaxed) < announced,
              let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int64,
              size != announced
        else { return nil }
        return announced
    }

    /// Whether the whole announced body was read (nothing left to watch).
    var isRead: Bool {
        let announced = announced.load(ordering: .relaxed)
        return announced >= 0 && sent.load(ordering: .relaxed) >= announced
    }
}
