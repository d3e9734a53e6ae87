/// The keyed container: each member becomes a child node of a map node.
struct FormKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: FormNode
    let codingPath: [any CodingKey]
    let writer: FormWriter

    /// A `nil` member is written as the encoder's ``URLEncodedFormEncoder/NilEncoding`` says
    /// (by default, left out of the form), whether encoded with `encodeNil(forKey:)` or
    /// skipped by a synthesized `encodeIfPresent`.
    mutating func encodeNil(forKey key: Key) throws {
        _ = child(forKey: key).set(.null)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try write(value, forKey: key)
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try writeIfPresent(value, forKey: key)
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try writeIfPresent(value, forKey: key) }

    private mutating func writeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try write(value, forKey: key) } else { try encodeNil(forKey: key) }
    }


    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [key]
        let target = writer.mapNode(child(forKey: key), at: path)
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(node: target, codingPath: path, writer: writer))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let path = codingPath + [key]
        return FormUnkeyedContainer(node: writer.listNode(child(forKey: key), at: path), codingPath: path, writer: writer)
    }

    mutating func superEncoder() -> any Encoder {
        FormValueEncoder(node: child(named: writer.name(for: FormCodingKey.super)),
                         codingPath: codingPath + [FormCodingKey.super], writer: writer)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        FormValueEncoder(node: child(forKey: key), codingPath: codingPath + [key], writer: writer)
    }

    private func write<T: Encodable>(_ value: T, forKey key: Key) throws {
        try writer.encode(value, into: child(forKey: key), at: codingPath + [key])
    }

    private func child(forKey key: Key) -> FormNode {
        child(named: writer.name(for: key))
    }

    private func child(named name: String) -> FormNode {
        let child = FormNode()
        node.add(child, forKey: name)
        return child
    }
}

/// The unkeyed container: each element becomes a child node of a list node.
struct FormUnkeyedContainer: UnkeyedEncodingContainer {
    let node: FormNode
    let codingPath: [any CodingKey]
    let writer: FormWriter

    var count: Int { node.elements.count }

    /// A `nil` element is left out of the form; with `.indexInBrackets` the later
    /// elements keep their positions.
    mutating func encodeNil() throws {
        _ = nextChild().set(.null)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try write(value)
    }


    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = codingPath + [FormCodingKey(intValue: count)]
        let target = writer.mapNode(nextChild(), at: path)
        return KeyedEncodingContainer(FormKeyedContainer<NestedKey>(node: target, codingPath: path, writer: writer))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = codingPath + [FormCodingKey(intValue: count)]
        return FormUnkeyedContainer(node: writer.listNode(nextChild(), at: path), codingPath: path, writer: writer)
    }

    mutating func superEncoder() -> any Encoder {
        let path = codingPath + [FormCodingKey(intValue: count)]
        return FormValueEncoder(node: nextChild(), codingPath: path, writer: writer)
    }

    private func write<T: Encodable>(_ value: T) throws {
        let path = codingPath + [FormCodingKey(intValue: count)]
        try writer.encode(value, into: nextChild(), at: path)
    }

    private func nextChild() -> FormNode {
        let child = FormNode()
        node.append(child)
        return child
    }
}

/// The single-value container: writes one scalar (or `nil`) into its node.
struct FormSingleValueContainer: SingleValueEncodingContainer {
    let node: FormNode
    let codingPath: [any CodingKey]
    let writer: FormWriter

    mutating func encodeNil() throws {
        if !node.set(.null) {
            writer.context.recordMisuse("A value was encoded twice into one single-value container",
                                        value: "nil", at: codingPath)
        }
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try write(value)
    }


    private func write<T: Encodable>(_ value: T) throws {
        try writer.encode(value, into: node, at: codingPath)
    }
}
