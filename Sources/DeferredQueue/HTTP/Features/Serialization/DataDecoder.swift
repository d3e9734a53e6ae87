import Foundation

/// Something that decodes a `Decodable` value from bytes, such as `JSONDecoder` or
/// `PropertyListDecoder`; used by ``DecodableResponseSerializer``.
///
/// `decode` may be called from several requests' queues at once, so a conforming
/// type must be safe to use concurrently (as Foundation's decoders are: they copy
/// their options per call).
public protocol DataDecoder: Sendable {
    /// Decodes a value of type `type` from `data`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The bytes, never empty when called by a serializer.
    /// - Returns: The decoded value.
    /// - Throws: Usually a `DecodingError`.
    func decode<D: Decodable>(_ type: D.Type, from data: Data) throws -> D
}

// Both decoders are already `Sendable` in Foundation (checked on Linux with Swift
// 6.3.1: a plain conformance compiles with no warning in the Swift 6 language mode,
// so neither `@retroactive` nor `@unchecked` is needed), and their `decode(_:from:)`
// has exactly this shape, so no wrapper is needed either.
extension JSONDecoder: DataDecoder {}

extension PropertyListDecoder: DataDecoder {}
