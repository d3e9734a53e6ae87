import Foundation

/// Writes `Encodable` values into ``FormNode``s with the options of one
/// ``URLEncodedFormEncoder``; shared by the encoder and all its containers.
struct FormWriter {
    let options: URLEncodedFormEncoder
    let context: FormEncodingContext
    /// How many `encode(to:)` calls this one is inside: counted here, not
    /// from the coding path, which a single-value container does not lengthen.
    var depth = 0

    /// Encodes `value` into `node`: as a scalar when the options give it a text form,
    /// otherwise through its own `encode(to:)`.
    func encode<T: Encodable>(_ value: T, into node: FormNode, at codingPath: [any CodingKey]) throws {
        // Each level recurses through `encode(to:)`: a deep enough value overflows the stack.
        guard depth <= URLEncoding.maximumNesting else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath, debugDescription: "The value is nested more than \(URLEncoding.maximumNesting) levels deep"
            ))
        }
        if let text = try options.text(for: value) {
            if !node.set(.scalar(text)) {
                context.recordMisuse("A value was encoded twice into one single-value container", value: value, at: codingPath)
            }
            return
        }
        var inner = self
        inner.depth += 1
        try value.encode(to: FormValueEncoder(node: node, codingPath: codingPath, writer: inner))
    }

    /// The form key for a coding key, after the key encoding.
    func name(for key: any CodingKey) -> String {
        options.keyEncoding.encode(key.stringValue)
    }

    /// `node` if it can become a map, else a detached node (the misuse is recorded).
    func mapNode(_ node: FormNode, at codingPath: [any CodingKey]) -> FormNode {
        if node.becomeMap() { return node }
        context.recordMisuse("A keyed container was requested for a value that is already \(node.shapeName)",
                             value: node.shapeName, at: codingPath)
        return FormNode()
    }

    /// `node` if it can become a list, else a detached node (the misuse is recorded).
    func listNode(_ node: FormNode, at codingPath: [any CodingKey]) -> FormNode {
        if node.becomeList() { return node }
        context.recordMisuse("An unkeyed container was requested for a value that is already \(node.shapeName)",
                             value: node.shapeName, at: codingPath)
        return FormNode()
    }
}

/// The `Encoder` handed to `encode(to:)` of each value that is not a scalar.
struct FormValueEncoder: Encoder {
    let node: FormNode
    let codingPath: [any CodingKey]
    let writer: FormWriter

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let target = writer.mapNode(node, at: codingPath)
        return KeyedEncodingContainer(FormKeyedContainer<Key>(node: target, codingPath: codingPath, writer: writer))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        FormUnkeyedContainer(node: writer.listNode(node, at: codingPath), codingPath: codingPath, writer: writer)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        FormSingleValueContainer(node: node, codingPath: codingPath, writer: writer)
    }
}

/// A coding key the encoder makes itself: array indices and `super`.
struct FormCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    static let `super` = FormCodingKey(stringValue: "super")
}
