/// A type whose value can stand for an empty response body.
///
/// ``DecodableResponseSerializer`` returns ``emptyValue()`` instead of decoding when
/// the body is empty and an empty body is allowed (204, 205 or `HEAD` by default).
/// Any other type then fails with
/// ``HTTPError/SerializationFailureReason/invalidEmptyResponse(type:)``. ``Empty``
/// (accepted for any empty body) and ``JSON`` (as ``JSON/null``) conform.
public protocol EmptyResponse {
    /// The value of an empty body.
    ///
    /// - Returns: The value that stands for "no content".
    static func emptyValue() -> Self
}
