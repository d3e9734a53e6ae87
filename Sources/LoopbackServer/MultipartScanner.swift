#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Foundation

/// Splits a multipart body into parts while it streams in, keeping of each part
/// its headers, length, ``BodyDigest`` and first ``keptBytes`` bytes: how the
/// server describes a multipart body too large to keep
/// (``LoopbackServer/OversizedBodies/truncate``).
///
/// Same grammar as ``MultipartParser``. Memory is bounded: unprocessed input
/// never exceeds one feed plus the delimiter length, a header block 64 KiB.
struct MultipartScanner: Sendable {
    /// How much of each part's content is kept.
    static let keptBytes = 4096
    private static let maxHeaderBytes = 64 * 1024

    private enum State: Sendable {
        /// Before the first delimiter.
        case preamble
        /// Right after a delimiter: `--` (end) or a line end (a part follows).
        case afterDelimiter
        /// Reading a part's header block.
        case headers
        /// Reading a part's content.
        case content
        /// After the closing delimiter: the rest is ignored.
        case epilogue
        case failed(MultipartError)
    }

    private let delimiter: [UInt8]
    /// CRLF + delimiter: what ends a part's content.
    private let separator: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8] = []
    private var atStart = true
    private var parts: [MultipartPart] = []
    private var partHeaders: [(name: String, value: String)] = []
    private var partPrefix: [UInt8] = []
    private var partLength: Int64 = 0
    private var partDigest = BodyDigest()

    init(boundary: String) {
        delimiter = Array("--\(boundary)".utf8)
        separator = Array("\r\n--\(boundary)".utf8)
    }

    /// Adds the next bytes of the body.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        if case .epilogue = state { return }
        if case .failed = state { return }
        pending.append(contentsOf: bytes)
        process()
    }

    /// The parts, once the whole body was fed; an error when it ended early or was malformed.
    func finish() -> Result<[MultipartPart], MultipartError> {
        switch state {
        case .epilogue: .success(parts)
        case .failed(let error): .failure(error)
        case .preamble: .failure(MultipartError(reason: "no boundary line in the body"))
        case .afterDelimiter: .failure(MultipartError(reason: "the body ends after a boundary"))
        case .headers: .failure(MultipartError(reason: "part \(parts.count + 1) is cut short in its header block"))
        case .content:
            .failure(MultipartError(reason: "part \(parts.count + 1) is cut short: no boundary after its content"))
        }
    }

    private mutating func process() {
        var position = 0
        defer { pending.removeFirst(position) }
        while true {
            switch state {
            case .preamble:
                if atStart, pending.count >= delimiter.count {
                    atStart = false
                    if matches(delimiter, at: 0) {
                        position = delimiter.count
                        state = .afterDelimiter
                        continue
                    }
                }
                if atStart { return }
                guard let found = find(separator, from: position) else {
                    position = max(position, pending.count - separator.count + 1)
                    return
                }
                position = found + separator.count
                state = .afterDelimiter
            case .afterDelimiter:
                var index = position
                while index < pending.count, pending[index] == 32 || pending[index] == 9 { index += 1 }
                guard index + 2 <= pending.count else { return }
                if pending[position] == 45, pending[position + 1] == 45 {  // "--"
                    position = pending.count
                    state = .epilogue
                    return
                }
                guard pending[index] == 13, pending[index + 1] == 10 else {
                    fail("a boundary is not followed by CRLF")
                    continue
                }
                // Keep the CRLF: an empty header block is this CRLF followed by another.
                position = index
                state = .headers
            case .headers:
                guard let end = find(Array("\r\n\r\n".utf8), from: position) else {
                    guard pending.count - position > Self.maxHeaderBytes else { return }
                    fail("part \(parts.count + 1) has headers over 64 KiB")
                    continue
                }
                do throws(MultipartError) {
                    let block = pending[min(position + 2, end)..<end]
                    partHeaders = try MultipartParser.headers(block, part: parts.count + 1)
                } catch {
                    fail(error.reason)
                    continue
                }
                position = end + 4
                state = .content
            case .content:
                if let found = find(separator, from: position) {
                    take(position..<found)
                    parts.append(MultipartPart(
                        headers: partHeaders, bodyPrefix: Data(partPrefix), length: partLength, digest: partDigest.value
                    ))
                    (partHeaders, partPrefix, partLength, partDigest) = ([], [], 0, BodyDigest())
                    position = found + separator.count
                    state = .afterDelimiter
                } else {
                    // All but a possible start of the separator is content.
                    let safe = max(position, pending.count - separator.count + 1)
                    take(position..<safe)
                    position = safe
                    return
                }
            case .epilogue, .failed:
                position = pending.count
                return
            }
        }
    }

    /// Stops scanning; the rest of the body is dropped as it arrives.
    private mutating func fail(_ reason: String) {
        state = .failed(MultipartError(reason: reason))
    }

    /// Counts, digests and (up to ``keptBytes``) keeps content bytes.
    private mutating func take(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        pending.withUnsafeBytes { bytes in
            let slice = UnsafeRawBufferPointer(rebasing: bytes[range])
            partDigest.update(slice)
            let kept = min(slice.count, Self.keptBytes - partPrefix.count)
            if kept > 0 { partPrefix.append(contentsOf: slice[..<kept]) }
        }
        partLength += Int64(range.count)
    }

    private func matches(_ pattern: [UInt8], at index: Int) -> Bool {
        index + pattern.count <= pending.count && pending[index..<index + pattern.count].elementsEqual(pattern)
    }

    /// The first occurrence of `pattern` at or after `start`, found with memchr and memcmp.
    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard let first = pattern.first, start + pattern.count <= pending.count else { return nil }
        return pending.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress else { return nil }
            var index = start
            let last = bytes.count - pattern.count
            while index <= last {
                guard let hit = memchr(base + index, Int32(first), last - index + 1) else { return nil }
                let candidate = base.distance(to: UnsafeRawPointer(hit))
                let equal = pattern.withUnsafeBytes { wanted in
                    wanted.baseAddress.map { memcmp(base + candidate, $0, pattern.count) == 0 } ?? false
                }
                if equal {
                    return candidate
                }
                index = candidate + 1
            }
            return nil
        }
    }
}
