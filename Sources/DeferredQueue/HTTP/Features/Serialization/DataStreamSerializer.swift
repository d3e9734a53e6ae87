import Foundation

/// Turns one chunk of a stream into a value (Alamofire's protocol): used by
/// ``DataStreamRequest/responseStream(using:on:stream:)``.
public protocol DataStreamSerializer<SerializedObject>: Sendable {
    /// The value each chunk becomes.
    associatedtype SerializedObject: Sendable

    /// Serializes one chunk; a thrown error reaches the handler as the chunk's failure.
    func serialize(_ data: Data) throws -> SerializedObject
}

/// Decodes each chunk as a `T` (newline-delimited JSON, server-sent values).
public struct DecodableStreamSerializer<T: Decodable & Sendable>: DataStreamSerializer {
    /// Decodes each chunk.
    public let decoder: any DataDecoder
    /// Prepares each chunk first.
    public let dataPreprocessor: any DataPreprocessor

    /// - Parameters:
    ///   - decoder: Default: a new `JSONDecoder`.
    ///   - dataPreprocessor: Default: ``PassthroughPreprocessor``.
    public init(decoder: any DataDecoder = JSONDecoder(), dataPreprocessor: any DataPreprocessor = PassthroughPreprocessor()) {
        self.decoder = decoder
        self.dataPreprocessor = dataPreprocessor
    }

    public func serialize(_ data: Data) throws -> T {
        let processed = try dataPreprocessor.preprocess(data)
        do {
            return try decoder.decode(T.self, from: processed)
        } catch {
            throw HTTPError.responseSerializationFailed(reason: .decodingFailed(error: error))
        }
    }
}

/// Hands each chunk over as it is.
public struct PassthroughStreamSerializer: DataStreamSerializer {
    public init() {}

    public func serialize(_ data: Data) throws -> Data { data }
}

/// Each chunk as UTF-8 text (invalid bytes replaced).
public struct StringStreamSerializer: DataStreamSerializer {
    public init() {}

    public func serialize(_ data: Data) throws -> String {
        String(decoding: data, as: UTF8.self)
    }
}

extension DataStreamSerializer {
    /// A ``DecodableStreamSerializer`` for `type`.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type, decoder: any DataDecoder = JSONDecoder(), dataPreprocessor: any DataPreprocessor = PassthroughPreprocessor()
    ) -> Self where Self == DecodableStreamSerializer<T> {
        DecodableStreamSerializer<T>(decoder: decoder, dataPreprocessor: dataPreprocessor)
    }
}

extension DataStreamSerializer where Self == PassthroughStreamSerializer {
    /// A ``PassthroughStreamSerializer``.
    public static var passthrough: PassthroughStreamSerializer { PassthroughStreamSerializer() }
}

extension DataStreamSerializer where Self == StringStreamSerializer {
    /// A ``StringStreamSerializer``.
    public static var string: StringStreamSerializer { StringStreamSerializer() }
}
