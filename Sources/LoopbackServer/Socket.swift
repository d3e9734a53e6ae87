#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over the POSIX socket calls the server needs.
///
/// Every function returns a `Result`-like value or throws ``LoopbackServerError``
/// carrying the `errno` text; nothing here traps. All sockets are created
/// close-on-exec (so a child process started by a test never inherits them) and
/// non-blocking where the server needs it.
enum Socket {
    /// The result of a non-blocking `recv` or `send`.
    enum IOResult {
        /// This many bytes were transferred (never 0 for `send`).
        case transferred(Int)
        /// The peer closed its side (recv only).
        case endOfFile
        /// The call would block; wait for the descriptor to become ready.
        case wouldBlock
        /// A hard error; the connection is unusable.
        case failed(Int32)
    }

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let sendFlags: Int32 = 0
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// Creates a TCP socket bound to 127.0.0.1 (or ::1 when `ipv6` is set) on `port` (0 = ephemeral).
    /// - Returns: the descriptor and the port actually bound.
    /// - Throws: ``LoopbackServerError`` naming the failing call.
    static func makeBoundSocket(
        ipv6: Bool = false, port: UInt16 = 0, reuseAddress: Bool = true
    ) throws(LoopbackServerError) -> (fd: Int32, port: Int) {
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, streamType, 0)
        guard fd >= 0 else { throw .system(ipv6 ? "socket(AF_INET6)" : "socket(AF_INET)") }
        do throws(LoopbackServerError) {
            #if canImport(Darwin)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            #endif
            if reuseAddress { try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, name: "setsockopt(SO_REUSEADDR)") }
            let bound: Int32
            if ipv6 {
                try setOption(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 1, name: "setsockopt(IPV6_V6ONLY)")
                var address = sockaddr_in6()
                #if canImport(Darwin)
                address.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
                #endif
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = port.bigEndian
                address.sin6_addr = in6addr_loopback
                bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                    }
                }
            } else {
                var address = sockaddr_in()
                #if canImport(Darwin)
                address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
                #endif
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1
                bound = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            guard bound == 0 else { throw .system(ipv6 ? "bind(::1)" : "bind(127.0.0.1)") }
            return (fd, try localPort(fd))
        } catch {
            close(fd)
            throw error
        }
    }

    /// The local port a bound socket uses (IPv4 or IPv6).
    static func localPort(_ fd: Int32) throws(LoopbackServerError) -> Int {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { throw .system("getsockname") }
        let port = withUnsafePointer(to: &address) { pointer -> UInt16 in
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        return Int(UInt16(bigEndian: port))
    }

    /// Starts listening with the given backlog and makes the socket non-blocking.
    static func listen(_ fd: Int32, backlog: Int32) throws(LoopbackServerError) {
        #if canImport(Darwin)
        guard Darwin.listen(fd, backlog) == 0 else { throw .system("listen") }
        #else
        guard Glibc.listen(fd, backlog) == 0 else { throw .system("listen") }
        #endif
        try setNonBlocking(fd)
    }

    /// Whether a connection waits to be accepted on `listener`, without
    /// accepting it (`false` on any error).
    static func hasPendingConnection(_ listener: Int32) -> Bool {
        readiness(listener, Int16(POLLIN)) & Int16(POLLIN) != 0
    }

    /// Whether a connected socket would report to a read source now: data,
    /// end of file, a hang-up or an error (`false` on any error of `poll`).
    static func isReadable(_ fd: Int32) -> Bool {
        readiness(fd, Int16(POLLIN)) != 0
    }

    /// Whether a connected socket would report to a write source now: room
    /// to write, a hang-up or an error (`false` on any error of `poll`).
    static func isWritable(_ fd: Int32) -> Bool {
        readiness(fd, Int16(POLLOUT)) != 0
    }

    /// The events `poll` reports for `fd` without waiting (0 on error).
    private static func readiness(_ fd: Int32, _ events: Int16) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let ready = poll(&entry, 1, 0)
            if ready < 0, errno == EINTR { continue }
            return ready > 0 ? entry.revents : 0
        }
    }

    /// Accepts one pending connection, already non-blocking, close-on-exec,
    /// SIGPIPE-free and with Nagle's algorithm off.
    /// - Returns: the descriptor, or a negative `errno` value (`-EAGAIN` when none is pending).
    static func accept(_ listener: Int32) -> Int32 {
        while true {
            // accept4 is not exported by the Glibc module, so flags are set afterwards.
            #if canImport(Darwin)
            let fd = Darwin.accept(listener, nil, nil)
            #else
            let fd = Glibc.accept(listener, nil, nil)
            #endif
            if fd < 0 {
                if errno == EINTR { continue }
                return -errno
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            do {
                try setNonBlocking(fd)
            } catch {
                close(fd)
                return -error.errorNumber
            }
            #if canImport(Darwin)
            try? setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1, name: "setsockopt(SO_NOSIGPIPE)")
            #endif
            try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, name: "setsockopt(TCP_NODELAY)")
            return fd
        }
    }

    /// Reads what is available into `buffer`.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .transferred(count) }
            if count == 0 { return .endOfFile }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// Writes as much of `bytes` as the socket takes now, never raising SIGPIPE.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .transferred(0) }
        while true {
            #if canImport(Darwin)
            let count = Darwin.send(fd, base, bytes.count, sendFlags)
            #else
            let count = Glibc.send(fd, base, bytes.count, sendFlags)
            #endif
            if count >= 0 { return .transferred(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// Shuts down one or both directions; errors (e.g. not connected) are ignored.
    static func shutdown(_ fd: Int32, writeOnly: Bool) {
        #if canImport(Darwin)
        _ = Darwin.shutdown(fd, writeOnly ? SHUT_WR : SHUT_RDWR)
        #else
        _ = Glibc.shutdown(fd, Int32(writeOnly ? SHUT_WR : SHUT_RDWR))
        #endif
    }

    /// A close-on-exec duplicate of `fd`, or nil (out of descriptors).
    static func duplicate(_ fd: Int32) -> Int32? {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    /// Closes a descriptor, ignoring errors (the descriptor is gone either way).
    static func close(_ fd: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(fd)
        #else
        _ = Glibc.close(fd)
        #endif
    }

    private static func setNonBlocking(_ fd: Int32) throws(LoopbackServerError) {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw .system("fcntl(O_NONBLOCK)") }
    }

    private static func setOption(
        _ fd: Int32, _ level: Int32, _ option: Int32, _ value: Int32, name: String
    ) throws(LoopbackServerError) {
        var value = value
        guard setsockopt(fd, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .system(name)
        }
    }
}
