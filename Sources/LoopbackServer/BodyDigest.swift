import Foundation

/// The 64-bit FNV-1a hash of a request body, as ``ServerRequest/bodyDigest`` reports it.
///
/// It is computed over every byte the client sent, also when the body was too
/// large to keep (see ``LoopbackServer/OversizedBodies/truncate``), so a test
/// can check an upload of any size by comparing the client's digest with the
/// server's. A checksum for tests, not a cryptographic hash.
///
/// ```swift
/// var digest = BodyDigest()
/// digest.update(firstPart)
/// digest.update(secondPart)
/// #expect(request.bodyDigest == digest.value)
/// ```
public struct BodyDigest: Sendable, Equatable {
    /// The FNV-1a 64 offset basis: the digest of no bytes.
    public static let empty: UInt64 = 0xCBF2_9CE4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01B3

    /// The digest of the bytes passed to `update(_:)` so far.
    public private(set) var value = BodyDigest.empty

    /// A digest of no bytes.
    public init() {}

    /// Adds bytes that follow the ones already added.
    /// - Parameter bytes: the next bytes of the body.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var hash = value
        var index = 0
        let count = bytes.count
        while index < count {
            hash = (hash ^ UInt64(base[index])) &* Self.prime
            index &+= 1
        }
        value = hash
    }

    /// Adds bytes that follow the ones already added.
    /// - Parameter bytes: the next bytes of the body.
    public mutating func update(_ bytes: Data) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The digest of `bytes`.
    /// - Parameter bytes: a whole body.
    /// - Returns: the value ``ServerRequest/bodyDigest`` has for that body.
    public static func of(_ bytes: Data) -> UInt64 {
        var digest = BodyDigest()
        digest.update(bytes)
        return digest.value
    }

    /// The digest of a file's contents, read 1 MiB at a time.
    /// - Parameter url: a file URL.
    /// - Returns: the value ``ServerRequest/bodyDigest`` has when the file is uploaded as the body.
    /// - Throws: the error of opening or reading the file.
    public static func ofFile(at url: URL) throws -> UInt64 {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var digest = BodyDigest()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            digest.update(chunk)
        }
        return digest.value
    }

    /// A digest as 16 lowercase hexadecimal digits, as ``Reply/echo(_:)`` sends it.
    /// - Parameter digest: a digest value.
    /// - Returns: for example `"cbf29ce484222325"`.
    public static func hexadecimal(_ digest: UInt64) -> String {
        let digits = String(digest, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
