import Foundation

/// Prepares a response body before a serializer reads it, e.g. to strip a prefix.
///
/// Serializers run their preprocessor on every non-empty body. An ``HTTPError`` thrown
/// here reaches the handler as is; any other error as
/// ``HTTPError/SerializationFailureReason/customSerializationFailed(error:)``.
public protocol DataPreprocessor: Sendable {
    /// Returns the bytes the serializer should read instead of `data`.
    ///
    /// - Parameter data: The body as received; never empty.
    /// - Returns: The body to serialize.
    /// - Throws: When the body cannot be prepared.
    func preprocess(_ data: Data) throws -> Data
}
