#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A minimal HTTP server on `[::1]` (LoopbackServer listens on 127.0.0.1
/// only): it reads each request's head and answers with fixed bytes, then
/// closes the connection. One thread, one connection at a time.
final class IPv6Listener: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let operation: String
        let code: Int32
        var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
    }

    let port: Int
    private let descriptor: Int32

    /// Whether `::1` can be bound here (IPv6 may be disabled in a container).
    static let isAvailable: Bool = {
        guard let probe = try? IPv6Listener(reply: "") else { return false }
        probe.close()
        return true
    }()

    /// Starts listening on an ephemeral port of `::1`.
    init(reply: String) throws {
        let fd = socket(AF_INET6, streamSocket, 0)
        guard fd >= 0 else { throw Failure(operation: "socket", code: errno) }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_addr = in6addr_loopback
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let code = errno
            closeDescriptor(fd)
            throw Failure(operation: "bind/listen on ::1", code: code)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin6_port))
        descriptor = fd
        let bytes = Array(reply.utf8)
        Thread.detachNewThread { Self.serve(fd, reply: bytes) }
    }

    /// Stops accepting (the serving thread's `accept` then fails and it ends).
    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        closeDescriptor(descriptor)
    }

    private static func serve(_ listening: Int32, reply: [UInt8]) {
        while true {
            let connection = accept(listening, nil, nil)
            guard connection >= 0 else { return }
            var head: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !head.ends(with: Array("\r\n\r\n".utf8)) {
                let count = read(connection, &buffer, buffer.count)
                if count <= 0 { break }
                head += buffer[0..<count]
            }
            _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            closeDescriptor(connection)
        }
    }
}

#if canImport(Glibc)
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#else
private let streamSocket = SOCK_STREAM
#endif

private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
