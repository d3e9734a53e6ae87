import Dispatch
import Foundation
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-connection server that reads a request's head and then stops
/// reading until ``release()``: the client's body waits in the socket
/// buffers, unsent, so a test can change what is still to be read. Then it
/// reads until the client closes the connection (it never answers) and
/// records every byte after the head. Made `resettingAfterHead`, it resets
/// the connection once the head is read instead, the body still coming.
final class HeldUploadServer: Sendable {
    let port: Int
    /// Arrives once the request's head was read.
    let headArrived = Latch()
    /// Arrives once the client closed the connection (or after a minute).
    let finished = Latch()
    private let released = DispatchSemaphore(value: 0)
    /// The head, and the bytes that followed it. Its one lock.
    private let received = Mutex<(head: String, body: Int64)>(("", 0))
    private let resettingAfterHead: Bool

    var head: String { received.withLock { $0.head } }
    var bodyBytes: Int64 { received.withLock { $0.body } }

    init(resettingAfterHead: Bool = false) throws {
        self.resettingAfterHead = resettingAfterHead
        let listener = socket(AF_INET, Self.streamType, 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        // A small receive buffer: the body stays with the client while held.
        var size: Int32 = 64 << 10
        setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(listener, address, length) == 0 && listen(listener, 1) == 0
                    && getsockname(listener, address, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in serve(listener) }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/upload")! }

    /// Lets the server read the rest of the request.
    func release() { released.signal() }

    private func serve(_ listener: Int32) {
        defer { finished.arrive() }
        let connection = accept(listener, nil, nil)
        close(listener)
        guard connection >= 0 else { return }
        defer { close(connection) }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var head = Data()
        var afterHead: Int64 = 0
        while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            head.append(contentsOf: buffer[0..<count])
            if let end = head.range(of: Data("\r\n\r\n".utf8)) {
                afterHead = Int64(head.count - end.upperBound)
                head = head.subdata(in: 0..<end.lowerBound)
                break
            }
        }
        received.withLock { $0 = (String(decoding: head, as: UTF8.self), afterHead) }
        headArrived.arrive()
        if resettingAfterHead {
            // Closed with unread input and no linger: a reset, not a FIN.
            var noLinger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &noLinger, socklen_t(MemoryLayout<linger>.size))
            return
        }
        guard released.wait(timeout: .now() + 120) == .success else { return }
        while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0 else { return }
            received.withLock { $0.body += Int64(count) }
        }
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    #else
    private static let streamType = SOCK_STREAM
    #endif
}
