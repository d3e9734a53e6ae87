#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import TestSupport

/// A blocking TCP client for looking at the bytes on the wire; every read gives up after 20 s.
final class RawClient: Sendable {
    enum ConnectError: Error, Equatable {
        case refused
        case failed(Int32)
    }

    struct Response {
        var status: Int
        /// Lowercased names.
        var headers: [String: String]
        var body: Data
    }

    private let descriptor: Mutex<Int32>
    private let buffered = Mutex(Data())

    private var fd: Int32 { descriptor.testLock(owner: self) { $0 } }

    /// Connects to `port` on 127.0.0.1, or on ::1 when `ipv6` is set; a
    /// `receiveBuffer` size keeps the window small, so a server's writes block.
    init(port: Int, ipv6: Bool = false, receiveBuffer: Int32? = nil) throws(ConnectError) {
        #if canImport(Darwin)
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw .failed(errno) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        let result: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            address.sin6_addr = in6addr_loopback
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            _ = Self.closeDescriptor(fd)
            throw code == ECONNREFUSED ? .refused : .failed(code)
        }
        self.descriptor = Mutex(fd)
    }

    func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    func send(_ bytes: Data) throws {
        try bytes.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let rest = UnsafeRawBufferPointer(rebasing: buffer[sent...])
                #if canImport(Darwin)
                let count = Darwin.send(fd, rest.baseAddress, rest.count, 0)
                #else
                let count = Glibc.send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL))
                #endif
                guard count > 0 else { throw ConnectError.failed(errno) }
                sent += count
            }
        }
    }

    /// Reads one response framed by Content-Length (or headers only for 1xx/204/304).
    func readResponse() throws -> Response {
        var response = try readHead()
        let length = (100..<200).contains(response.status) ? 0 : Int(response.headers["content-length"] ?? "0") ?? 0
        while buffered.testLock(owner: self, { $0.count }) < length {
            guard try fill() else { throw ConnectError.failed(0) }
        }
        response.body = buffered.testLock(owner: self) { data in
            defer { data = Data(data.dropFirst(length)) }
            return Data(data.prefix(length))
        }
        return response
    }

    /// Reads a status line and headers; the body stays buffered (``Response/body`` is empty).
    func readHead() throws -> Response {
        while true {
            let data = buffered.testLock(owner: self) { $0 }
            if let end = data.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                        .trimmingCharacters(in: .whitespaces)
                }
                let status = statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0
                buffered.testLock(owner: self) { $0 = Data($0[end.upperBound...]) }
                return Response(status: status, headers: headers, body: Data())
            }
            guard try fill() else { throw ConnectError.failed(0) }
        }
    }

    /// Hands every received byte to `consume` (buffered ones first) until `count`
    /// bytes were delivered or the server closes; keeps nothing.
    /// - Returns: how many bytes were delivered.
    func stream(upTo count: Int64, _ consume: (Data) -> Void) throws -> Int64 {
        var delivered: Int64 = 0
        let first = buffered.testLock(owner: self) { data in
            defer { data = Data(data.dropFirst(Int(min(count, Int64(data.count))))) }
            return Data(data.prefix(Int(min(count, Int64(data.count)))))
        }
        if !first.isEmpty { consume(first) }
        delivered += Int64(first.count)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while delivered < count {
            let wanted = Int(min(Int64(chunk.count), count - delivered))
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, wanted, 0) }
            if received == 0 || (received < 0 && errno == ECONNRESET) { break }
            if received < 0 { throw ConnectError.failed(errno) }
            consume(Data(chunk[..<received]))
            delivered += Int64(received)
        }
        return delivered
    }

    /// Reads until the server closes; returns what was not consumed yet.
    func readToEnd() throws -> Data {
        while try fill() {}
        return buffered.testLock(owner: self) { data in
            defer { data = Data() }
            return data
        }
    }

    /// Reads once; `false` at end of file.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count == 0 { return false }
        if count < 0 {
            if errno == ECONNRESET { return false }
            throw ConnectError.failed(errno)
        }
        buffered.testLock(owner: self) { $0.append(contentsOf: chunk[..<count]) }
        return true
    }

    /// Closes the socket; later calls do nothing.
    func close() {
        descriptor.testLock(owner: self) { fd in
            if fd >= 0 { _ = Self.closeDescriptor(fd) }
            fd = -1
        }
    }

    private static func closeDescriptor(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.close(fd)
        #else
        Glibc.close(fd)
        #endif
    }
}
