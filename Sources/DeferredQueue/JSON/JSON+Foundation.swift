import Foundation

extension JSON {
    /// The value in `JSONSerialization`'s shape — `NSNull`, `Bool`, `Double`
    /// (an `Int` when it is a whole number that fits), `String`, `[Any]`,
    /// `[String: Any]` — what Alamofire's `responseJSON` delivered, for code
    /// that casts it: `response.value?.foundationValue as? [String: Any]`.
    public var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .number(let value): return Int(exactly: value) ?? value
        case .string(let value): return value
        case .array(let elements): return elements.map(\.foundationValue)
        case .object(let members): return members.mapValues(\.foundationValue)
        }
    }
}
