import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension MultipartFormData {
    /// Encodes the form in memory.
    ///
    /// File and stream parts are read now, so the result holds every byte of every part:
    /// use ``writeEncodedData(to:)`` for big forms.
    ///
    /// ```swift
    /// var request = URLRequest(url: url)
    /// request.httpMethod = "POST"
    /// request.setValue(form.contentType, forHTTPHeaderField: "Content-Type")
    /// request.httpBody = try form.encode()
    /// ```
    ///
    /// - Returns: The body, ``contentLength`` bytes long.
    /// - Throws: ``HTTPError/multipartEncodingFailed(reason:)``: the first problem met while
    ///   appending, or a file or stream that cannot be read now or changed size.
    public func encode() throws -> Data {
        let parts = try partsToEncode()
        var data = Data()
        // Data and file lengths are real, so reserve them at once; a stream's length is only
        // the caller's word (an absurd one must fail as a length mismatch, not an allocation).
        if !parts.contains(where: \.isStream) {
            let length = State(parts: parts).contentLength(boundary: boundary)
            if length <= UInt64(Int.max) { data.reserveCapacity(Int(length)) }
        }
        try Self.write(parts, boundary: boundary) { data.append($0) }
        return data
    }

    /// Writes the encoded form to a new file, reading file and stream parts in chunks so that
    /// memory stays flat whatever their size.
    ///
    /// ```swift
    /// let bodyURL = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    /// try form.writeEncodedData(to: bodyURL)
    /// defer { try? FileManager.default.removeItem(at: bodyURL) }
    /// ```
    ///
    /// - Parameter fileURL: A `file:` URL where nothing exists yet; the file is created with
    ///   permissions `0600` and never overwrites anything.
    /// - Throws: ``HTTPError/multipartEncodingFailed(reason:)``: the first problem met while
    ///   appending, `outputStreamURLInvalid`, `outputStreamFileAlreadyExists`,
    ///   `outputStreamCreationFailed`, a part that cannot be read now, or
    ///   `outputStreamWriteFailed`. After a failure the partial file is removed.
    public func writeEncodedData(to fileURL: URL) throws {
        try writeEncodedData(to: fileURL, isCancelled: { false })
    }

    /// ``writeEncodedData(to:)``, stopping with `CancellationError` once `isCancelled`.
    func writeEncodedData(to fileURL: URL, isCancelled: () -> Bool) throws {
        let parts = try partsToEncode()
        let output = try Self.createExclusively(fileURL)
        do {
            // Gathers the small pieces (delimiters, headers, fields) into fewer writes.
            var buffer = Data()
            try Self.write(parts, boundary: boundary) { chunk in
                if isCancelled() { throw CancellationError() }
                if buffer.count + chunk.count > Self.chunkSize {
                    try Self.write(buffer, to: output)
                    buffer.removeAll(keepingCapacity: true)
                }
                if chunk.count >= Self.chunkSize { try Self.write(chunk, to: output) } else { buffer.append(chunk) }
            }
            try Self.write(buffer, to: output)
            do { try output.close() } catch { throw Self.failure(.outputStreamWriteFailed(error: error)) }
        } catch {
            try? output.close()
            try? fileManager.removeItem(at: fileURL)
            throw error
        }
    }

    /// The parts appended so far, or the first problem met while appending them. Encoding
    /// works on this snapshot without holding the lock, so a long write blocks nobody.
    private func partsToEncode() throws -> [MultipartBodyPart] {
        let snapshot = state.withLock(owner: self) { $0 }
        if let failure = snapshot.failure { throw failure }
        return snapshot.parts
    }

    /// Feeds the encoded form to `sink` in order: delimiters, header blocks, contents.
    static func write(
        _ parts: [MultipartBodyPart], boundary: String, to sink: (Data) throws -> Void
    ) throws {
        let delimiter = Data("--\(boundary)\r\n".utf8)
        let lineEnd = Data("\r\n".utf8)
        for part in parts {
            try sink(delimiter)
            try sink(part.headers)
            switch part.content {
            case .data(let data):
                try sink(data)
            case .file(let url):
                try copyFile(url, length: part.length, to: sink)
            case .stream(let source):
                let taken = source.stream.withLock(owner: source) { $0.take() }
                guard let input = taken else { throw failure(.inputStreamAlreadyRead) }
                try copyStream(input, length: part.length, to: sink)
            }
            try sink(lineEnd)
        }
        try sink(Data("--\(boundary)--\r\n".utf8))
    }

    /// Copies exactly `length` bytes of the file, and checks it has no more.
    private static func copyFile(_ url: URL, length: UInt64, to sink: (Data) throws -> Void) throws {
        let input: FileHandle
        do { input = try FileHandle(forReadingFrom: url) } catch {
            throw failure(.bodyPartFileNotReadable(at: url, error: error))
        }
        defer { try? input.close() }
        var copied: UInt64 = 0
        while copied < length {
            let chunk = try read { try input.read(upToCount: Int(min(UInt64(chunkSize), length - copied))) }
            guard let chunk, !chunk.isEmpty else {
                throw failure(.bodyPartFileSizeChanged(at: url, expected: length, actual: copied))
            }
            copied += UInt64(chunk.count)
            try sink(chunk)
        }
        if let extra = try read({ try input.read(upToCount: 1) }), !extra.isEmpty {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path))
                .flatMap(MultipartFormData.size) ?? length + 1
            throw failure(.bodyPartFileSizeChanged(at: url, expected: length, actual: size))
        }
    }

    /// Opens the stream, copies exactly `length` bytes of it, and closes it.
    private static func copyStream(_ stream: InputStream, length: UInt64, to sink: (Data) throws -> Void) throws {
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var copied: UInt64 = 0
        while copied < length {
            let wanted = Int(min(UInt64(chunkSize), length - copied))
            let count = buffer.withUnsafeMutableBufferPointer { bytes in
                bytes.baseAddress.map { stream.read($0, maxLength: wanted) } ?? -1
            }
            if count < 0 {
                throw failure(.inputStreamReadFailed(error: stream.readFailure))
            }
            guard count > 0 else { throw failure(.inputStreamLengthMismatch(expected: length, actual: copied)) }
            copied += UInt64(count)
            try sink(Data(buffer[0..<count]))
        }
        // A longer stream than declared is not cut short without a word.
        let extra = buffer.withUnsafeMutableBufferPointer { bytes in bytes.baseAddress.map { stream.read($0, maxLength: 1) } ?? 0 }
        if extra > 0 { throw failure(.inputStreamLengthMismatch(expected: length, actual: copied + UInt64(extra))) }
    }

    /// The lengths the form's stream parts declare, added (saturating).
    var declaredStreamLength: UInt64 {
        let parts = state.withLock(owner: self) { $0.parts }
        return parts.filter(\.isStream).reduce(0) { total, part in
            let (sum, overflow) = total.addingReportingOverflow(part.length)
            return overflow ? .max : sum
        }
    }

    private static func read(_ body: () throws -> Data?) throws -> Data? {
        do { return try body() } catch { throw failure(.inputStreamReadFailed(error: error)) }
    }

    private static func write(_ data: Data, to output: FileHandle) throws {
        do { try output.write(contentsOf: data) } catch { throw failure(.outputStreamWriteFailed(error: error)) }
    }

    /// A new file at `fileURL`, created atomically only if nothing is there (`O_EXCL`).
    private static func createExclusively(_ fileURL: URL) throws -> FileHandle {
        guard fileURL.isFileURL else { throw failure(.outputStreamURLInvalid(url: fileURL)) }
        let descriptor = fileURL.withUnsafeFileSystemRepresentation { path -> Int32 in
            guard let path else { errno = EINVAL; return -1 }
            return open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        }
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw failure(.outputStreamFileAlreadyExists(at: fileURL)) }
            let error = POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            throw failure(.outputStreamCreationFailed(for: fileURL, error: error))
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    private static func failure(_ reason: HTTPError.MultipartEncodingFailureReason) -> HTTPError {
        .multipartEncodingFailed(reason: reason)
    }
}
