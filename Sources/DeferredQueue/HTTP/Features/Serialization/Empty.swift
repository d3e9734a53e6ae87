/// The value of a response that has no body worth reading.
///
/// Decode it when all that matters is that the request succeeded:
///
/// ```swift
/// _ = try await request(url, method: .delete).validate().serializingDecodable(Empty.self).value
/// ```
///
/// It decodes from an empty body where one is allowed (204, 205, `HEAD`), and from
/// any JSON object or `null` otherwise. An empty `200` is still
/// ``HTTPError/SerializationFailureReason/inputDataNilOrZeroLength(serializer:)``
/// unless 200 is among the serializer's `emptyResponseCodes`.
public struct Empty: Codable, Sendable, Equatable, EmptyResponse {
    /// The one value.
    public static let value = Empty()

    /// ``value``.
    ///
    /// - Returns: ``value``.
    public static func emptyValue() -> Empty {
        value
    }
}
