// An allowed empty body (204, 205, HEAD) serializes as JSON `null`, as Alamofire's
// JSON serializer answers NSNull: there is no content, and `null` says so.
extension JSON: EmptyResponse {
    /// ``JSON/null``.
    ///
    /// - Returns: ``JSON/null``.
    public static func emptyValue() -> JSON {
        .null
    }
}
