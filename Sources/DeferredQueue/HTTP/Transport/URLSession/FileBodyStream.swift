#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
#if canImport(Glibc)
import Glibc
private func systemOpen(_ path: String) -> Int32 { Glibc.open(path, O_RDONLY | O_CLOEXEC) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { Glibc.read(descriptor, buffer, count) }
private func systemClose(_ descriptor: Int32) { _ = Glibc.close(descriptor) }
#elseif canImport(Musl)
import Musl
private func systemOpen(_ path: String) -> Int32 { Musl.open(path, O_RDONLY | O_CLOEXEC) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int { Musl.read(descriptor, buffer, count) }
private func systemClose(_ descriptor: Int32) { _ = Musl.close(descriptor) }
#endif

/// The first `length` bytes of a file, as a stream libcurl reads in its own
/// callback: how the URLSession transport sends a file on Linux.
///
/// corelibs reads a file body (`uploadTask(with:fromFile:)`) asynchronously,
/// pausing libcurl while a read is pending and un-pausing it when the read
/// completes; once the transfer has ended meanwhile (a cancel, a timeout, an
/// early response), that call fails and corelibs `try!`s it, which stops the
/// process. A stream is read synchronously, so nothing waits on a read. Its
/// length is announced by the transport (`Content-Length`), and a read fails,
/// so that libcurl aborts at once, when the file ends before it (it shrank)
/// or goes on after it (it grew).
final class FileBodyStream: InputStream {
    private let path: String
    private var remaining: Int64
    private var descriptor: Int32 = -1

    init(file: URL, length: Int64) {
        path = file.path
        remaining = length
        super.init(data: Data())
    }

    deinit {
        if descriptor >= 0 { systemClose(descriptor) }
    }

    override var hasBytesAvailable: Bool { true }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        if descriptor < 0 {
            descriptor = systemOpen(path)
            guard descriptor >= 0 else { return -1 }
        }
        if remaining == 0 {
            // The announced length went out: a byte more means the file grew.
            var byte: UInt8 = 0
            return systemRead(descriptor, &byte, 1) == 0 ? 0 : -1
        }
        let count = systemRead(descriptor, buffer, Int(min(Int64(length), remaining)))
        guard count > 0 else { return -1 }
        remaining -= Int64(count)
        return count
    }
}
#endif
