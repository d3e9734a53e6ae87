import AsyncHTTPClient
import DeferredQueue
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import Synchronization

/// Converts between Foundation's request and response types and AsyncHTTPClient's.
enum RequestConversion {
    /// The client request for `request`: its method, URL, header fields and
    /// body (`bodyFile` streamed within `window`, a new one if `nil`).
    ///
    /// - Throws: `URLError.badURL` without a URL; AsyncHTTPClient's error for
    ///   a URL it cannot send to (an unsupported scheme, no host).
    static func clientRequest(
        from request: URLRequest, bodyFile: URL? = nil, window: RequestBodyWindow? = nil
    ) throws -> HTTPClient.Request {
        guard let url = request.url else { throw URLError(.badURL) }
        // Made whole, not field by field: `add` traps on a name that is not
        // ASCII, where the client's own check of every name and value before
        // sending fails the request with an error.
        let headers = NIOHTTP1.HTTPHeaders(request.allHTTPHeaderFields.map { $0.map { ($0.key, $0.value) } } ?? [])
        let body: HTTPClient.Body?
        if let bodyFile {
            body = try fileBody(bodyFile, url: url, window: window ?? RequestBodyWindow())
        } else if let data = request.httpBody {
            body = .bytes(data)
        } else if let stream = request.httpBodyStream {
            body = streamBody(StreamReader(stream))
        } else {
            body = nil
        }
        return try HTTPClient.Request(
            url: url, method: NIOHTTP1.HTTPMethod(rawValue: request.httpMethod ?? "GET"), headers: headers, body: body
        )
    }

    /// A body streamed from `file`, 256 KiB at a time, each piece read when
    /// the client took the previous one and `window` allows: the file is
    /// never loaded whole, and at most the window's limit waits unwritten.
    /// Exactly the length measured now is sent: a file that grows or
    /// shrinks meanwhile fails the attempt
    /// (``HTTPTransportAttempt/bodyFileChangedLength(_:announced:url:)``).
    ///
    /// - Throws: ``HTTPBodyFile/open(_:)``'s errors, for a file that cannot
    ///   be opened or is not a regular file.
    /// - Note: The reads are blocking file reads on the connection's event
    ///   loop; a file on a slow disk holds that loop up for each read.
    static func fileBody(_ file: URL, url: URL? = nil, window: RequestBodyWindow) throws -> HTTPClient.Body {
        // Measured through a descriptor (through a link, a regular file
        // only, with the errors the URLSession transport gives), then opened
        // again, and checked to be this file, each time the body goes out
        // (`openForSending`).
        let measured = try HTTPBodyFile.open(file)
        try? measured.handle.close()
        let size = measured.length
        let identity = FileIdentity(measured)
        let piece: Int64 = 256 << 10
        return .stream(contentLength: size) { writer in
            @Sendable func finish(_ handle: FileHandle, after written: EventLoopFuture<Void>) -> EventLoopFuture<Void> {
                written.always { _ in try? handle.close() }
            }
            let changed = HTTPTransportAttempt.bodyFileChangedLength(file, announced: size, url: url)
            let handle: FileHandle
            let first: Data
            do {
                handle = try openForSending(file, identity: identity, length: size, changed: changed)
                first = try handle.read(upToCount: Int(min(piece, size))) ?? Data()
            } catch {
                return writer.write(.byteBuffer(ByteBuffer())).flatMapThrowing { throw error }
            }
            /// Writes `chunk`, then the next piece of the `left` bytes after it.
            @Sendable func write(_ chunk: Data, leaving left: Int64) -> EventLoopFuture<Void> {
                let taken = writer.write(.byteBuffer(ByteBuffer(bytes: chunk)))
                let written = taken.and(window.produced(chunk.count, on: taken.eventLoop)).map { _ in }
                return written.flatMapThrowing { () -> Data? in
                    guard left > 0 else {
                        // Sent whole: one byte more means the file grew.
                        if let extra = try handle.read(upToCount: 1), !extra.isEmpty { throw changed }
                        return nil
                    }
                    guard let next = try handle.read(upToCount: Int(min(piece, left))), !next.isEmpty else { throw changed }
                    return next
                }.flatMap { next in
                    guard let next else { return written.eventLoop.makeSucceededVoidFuture() }
                    return write(next, leaving: left - Int64(next.count))
                }
            }
            return finish(handle, after: write(first, leaving: size - Int64(first.count)))
        }
    }

    /// `file`, opened to be sent (``HTTPBodyFile/open(_:)``: a FIFO
    /// swapped in since the file was measured cannot hold up the event loop
    /// in `open`), and checked to be the file that was measured
    /// (`identity`), still `length` bytes long: what is read is that
    /// file's bytes, whatever the path names now (another file moved or
    /// linked there).
    ///
    /// - Throws: ``HTTPBodyFile/open(_:)``'s errors; `URLError.cannotOpenFile`
    ///   for another file; `changed` for one of another length.
    static func openForSending(_ file: URL, identity: FileIdentity, length: Int64, changed: URLError) throws -> FileHandle {
        let opened = try HTTPBodyFile.open(file)
        if identity != FileIdentity(opened) {
            throw URLError(.cannotOpenFile, userInfo: [
                NSFilePathErrorKey: file.path,
                NSLocalizedDescriptionKey: "\(file.path) was replaced by another file after it was measured; upload a file nothing replaces meanwhile.",
            ])
        }
        guard opened.length == length else { throw changed }
        return opened.handle
    }

    /// A body read from a request's body stream 64 KiB at a time, each
    /// piece when the client took the previous one, sent chunked (its length
    /// is unknown): the stream is never held whole, whatever its size.
    ///
    /// - Note: Like a file body's, the reads are blocking reads on the
    ///   connection's event loop.
    static func streamBody(_ reader: StreamReader) -> HTTPClient.Body {
        .stream(contentLength: nil) { writer in
            @Sendable func write(after written: EventLoopFuture<Void>?) -> EventLoopFuture<Void> {
                let piece: Data
                do {
                    piece = try reader.next()
                } catch {
                    return writer.write(.byteBuffer(ByteBuffer())).flatMapThrowing { throw error }
                }
                if piece.isEmpty, let written { return written }
                let taken = writer.write(.byteBuffer(ByteBuffer(bytes: piece)))
                return piece.isEmpty ? taken : taken.flatMap { write(after: taken) }
            }
            return write(after: nil).always { _ in reader.close() }
        }
    }

    /// A request's body stream, opened on the first read and read a piece
    /// at a time, behind one lock.
    final class StreamReader: Sendable {
        private struct State {
            let stream: InputStream
            var opened = false
        }

        private let state: Mutex<State>

        init(_ stream: sending InputStream) {
            state = Mutex(State(stream: stream))
        }

        /// The next piece, empty at the end.
        ///
        /// - Throws: The stream's error, or `URLError.cannotDecodeRawData`.
        func next() throws -> Data {
            try state.withLock { state in
                if !state.opened {
                    state.stream.open()
                    state.opened = true
                }
                var piece = Data(count: 64 << 10)
                let count = piece.withUnsafeMutableBytes { bytes in
                    state.stream.read(bytes.bindMemory(to: UInt8.self).baseAddress!, maxLength: bytes.count)
                }
                // corelibs traps reading `streamError` of a stream without one
                // (a subclass whose `read` returned -1): asked only when there is one.
                if count < 0 {
                    throw (state.stream.streamStatus == .error ? state.stream.streamError : nil) ?? URLError(.cannotDecodeRawData)
                }
                piece.count = count
                return piece
            }
        }

        func close() {
            state.withLock { state in if state.opened { state.stream.close() } }
        }
    }

    /// The head of a response received for `url`, its fields as they came
    /// (the session makes an `HTTPURLResponse` of it only when asked).
    /// `HTTP/1.1` for `.http1_1`: the usual versions without building a string each time.
    static func versionString(_ version: HTTPVersion) -> String {
        switch (version.major, version.minor) {
        case (1, 1): "HTTP/1.1"
        case (2, 0): "HTTP/2.0"
        case (1, 0): "HTTP/1.0"
        default: "HTTP/\(version.major).\(version.minor)"
        }
    }

    static func response(_ head: HTTPResponseHead, url: URL) -> ResponseHead {
        ResponseHead(
            url: url, statusCode: Int(head.status.code),
            httpVersion: versionString(head.version),
            headers: DeferredQueue.HTTPHeaders(keepingDuplicates: head.headers.map { DeferredQueue.HTTPHeader(name: $0.name, value: $0.value) })
        )
    }
}
