/// One value in the tree that ``URLEncodedFormEncoder`` builds from an `Encodable` value
/// before flattening it to `key=value` pairs.
///
/// A node starts unset and takes one shape the first time it is written: a scalar, `nil`,
/// a list or a map. Containers hold a reference to their node so nested containers can keep
/// writing into it after the call that created them returns. Lives for one `encode` call on
/// one thread, so it needs no lock and is not `Sendable`.
final class FormNode {
    enum Shape: Equatable {
        case unset
        case null
        case scalar(String)
        case list
        case map
    }

    private(set) var shape: Shape = .unset
    /// The elements of a list, in encoding order.
    private(set) var elements: [FormNode] = []
    /// The members of a map, in encoding order; a key may repeat (as when a class and its
    /// superclass both write into one container).
    private(set) var entries: [(key: String, node: FormNode)] = []

    /// Makes this node a map, or confirms it is one. Returns `false` when it already holds
    /// something else.
    func becomeMap() -> Bool {
        switch shape {
        case .unset: shape = .map; return true
        case .map: return true
        default: return false
        }
    }

    /// Makes this node a list, or confirms it is one. Returns `false` when it already holds
    /// something else.
    func becomeList() -> Bool {
        switch shape {
        case .unset: shape = .list; return true
        case .list: return true
        default: return false
        }
    }

    /// Sets a single value (a scalar or `nil`). Returns `false` when the node is not unset.
    func set(_ value: Shape) -> Bool {
        guard shape == .unset else { return false }
        shape = value
        return true
    }

    /// Appends an element to a list node.
    func append(_ node: FormNode) {
        elements.append(node)
    }

    /// Adds a member to a map node.
    func add(_ node: FormNode, forKey key: String) {
        entries.append((key, node))
    }

    /// A short name for the shape, for error messages.
    var shapeName: String {
        switch shape {
        case .unset: return "nothing"
        case .null: return "nil"
        case .scalar: return "a single value"
        case .list: return "an array"
        case .map: return "a keyed container"
        }
    }
}

/// What one `encode` call shares between its containers: the first misuse of the
/// `Encoder` protocol (asking one value for two kinds of container, or writing a single
/// value twice), reported when encoding ends since container factories cannot throw.
final class FormEncodingContext {
    private(set) var misuse: EncodingError?

    func recordMisuse(_ message: String, value: Any, at codingPath: [any CodingKey]) {
        guard misuse == nil else { return }
        misuse = .invalidValue(value, EncodingError.Context(codingPath: codingPath, debugDescription: message))
    }
}
