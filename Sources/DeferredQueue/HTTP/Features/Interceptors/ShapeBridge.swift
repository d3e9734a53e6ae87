/// The two shapes of a requirement (`async`, and Alamofire's completion
/// handler) default to each other. While a default bridges one to the
/// other, `bridging` names the conforming type: reaching the other default
/// of the same type means it implements neither shape, and the call fails
/// with ``UnimplementedRequirement`` instead of bridging forever.
enum ShapeBridge {
    @TaskLocal static var bridging: ObjectIdentifier?

    /// Whether `type`'s defaults are already bridging (it implements neither shape).
    static func isBridging(_ type: Any.Type) -> Bool {
        bridging == ObjectIdentifier(type)
    }
}

/// A type conforming to ``RequestAdapter``, ``RequestRetrier`` or
/// ``Authenticator`` implements neither shape of a requirement.
struct UnimplementedRequirement: Error, CustomStringConvertible {
    let type: Any.Type
    let requirement: String

    var description: String {
        "\(type) implements neither shape of \(requirement): implement the async method or Alamofire's "
            + "completion-handler one."
    }
}
