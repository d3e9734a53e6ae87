#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A minimal HTTP server on 127.0.0.1 that answers one request with a body
/// of `length` zero bytes, written with blocking writes, and counts the bytes
/// the kernel took: how far the client let it get ahead.
///
/// (LoopbackServer writes as the client reads too, but does not say how much
/// it wrote.)
final class CountingBodyServer: Sendable {
    let port: Int
    private let descriptor: Int32
    private let written = Atomic<Int64>(0)

    /// The body bytes written so far.
    var bytesWritten: Int64 { written.load(ordering: .relaxed) }

    init(length: Int64) throws {
        let fd = socket(AF_INET, countingStreamSocket, 0)
        guard fd >= 0 else { throw IPv6Listener.Failure(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            let code = errno
            closeSocket(fd)
            throw IPv6Listener.Failure(operation: "bind/listen on 127.0.0.1", code: code)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        descriptor = fd
        Thread.detachNewThread { self.serve(length: length) }
    }

    /// Stops accepting and ends the connection being served.
    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        closeSocket(descriptor)
    }

    private func serve(length: Int64) {
        let connection = accept(descriptor, nil, nil)
        guard connection >= 0 else { return }
        defer { closeSocket(connection) }
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !(head.count >= 4 && Array(head.suffix(4)) == Array("\r\n\r\n".utf8)) {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { return }
            head += buffer[0..<count]
        }
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n".utf8)
        guard response.withUnsafeBytes({ write(connection, $0.baseAddress, $0.count) }) == response.count else { return }
        let chunk = [UInt8](repeating: 0, count: 64 << 10)
        var remaining = length
        while remaining > 0 {
            let count = chunk.withUnsafeBytes { write(connection, $0.baseAddress, Int(min(Int64($0.count), remaining))) }
            if count <= 0 { return }
            remaining -= Int64(count)
            written.add(Int64(count), ordering: .relaxed)
        }
    }
}

#if canImport(Glibc)
private let countingStreamSocket = Int32(SOCK_STREAM.rawValue)
#else
private let countingStreamSocket = SOCK_STREAM
#endif

private func closeSocket(_ fd: Int32) {
    _ = close(fd)
}
