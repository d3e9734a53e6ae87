/// The value of a response that has no body worth reading.
///
/// Decode it when all that matters is that the request succeeded:
///
/// ```swift
/// _ = try await request(url, method: .delete).validate().serializingDecodable(Empty.self).value
/// ```
///
/// ``DecodableResponseSerializer`` returns ``value`` for any empty body, whatever the
/// status (an empty `200` included: asking for `Empty` says the body does not matter),
/// and decodes a non-empty body as usual, so a JSON object such as `{}` is accepted
/// too. Transport and validation failures still fail: chain `validate()` to reject
/// error statuses.
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
