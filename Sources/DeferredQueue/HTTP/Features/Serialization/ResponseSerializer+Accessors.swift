import Foundation

// Alamofire's static accessors, so that a serializer or preprocessor can be
// named where one is expected: `response(responseSerializer: .data)`,
// `DecodableResponseSerializer<T>(dataPreprocessor: .googleXSSI)`.
//
// Once per protocol a parameter may ask for: Swift finds an implicit member
// in the extensions of the parameter's own protocol (and those it refines,
// where `ResponseSerializer`'s own wins over its two parents' alike ones).

extension ResponseSerializer where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer`` with its defaults.
    public static var data: DataResponseSerializer { DataResponseSerializer() }
}

extension ResponseSerializer where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with its defaults.
    public static var string: StringResponseSerializer { StringResponseSerializer() }
}

extension ResponseSerializer where Self == JSONResponseSerializer {
    /// A ``JSONResponseSerializer`` with its defaults.
    public static var json: JSONResponseSerializer { JSONResponseSerializer() }
}

extension ResponseSerializer {
    /// A ``DecodableResponseSerializer`` for `type`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    /// - Returns: The serializer.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type, decoder: any DataDecoder = JSONDecoder()
    ) -> Self where Self == DecodableResponseSerializer<T> {
        DecodableResponseSerializer<T>(decoder: decoder)
    }
}

extension DataResponseSerializerProtocol where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer`` with its defaults.
    public static var data: DataResponseSerializer { DataResponseSerializer() }
}

extension DataResponseSerializerProtocol where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with its defaults.
    public static var string: StringResponseSerializer { StringResponseSerializer() }
}

extension DataResponseSerializerProtocol where Self == JSONResponseSerializer {
    /// A ``JSONResponseSerializer`` with its defaults.
    public static var json: JSONResponseSerializer { JSONResponseSerializer() }
}

extension DataResponseSerializerProtocol {
    /// A ``DecodableResponseSerializer`` for `type`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    /// - Returns: The serializer.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type, decoder: any DataDecoder = JSONDecoder()
    ) -> Self where Self == DecodableResponseSerializer<T> {
        DecodableResponseSerializer<T>(decoder: decoder)
    }
}

extension DownloadResponseSerializerProtocol where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer`` with its defaults.
    public static var data: DataResponseSerializer { DataResponseSerializer() }
}

extension DownloadResponseSerializerProtocol where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with its defaults.
    public static var string: StringResponseSerializer { StringResponseSerializer() }
}

extension DownloadResponseSerializerProtocol where Self == JSONResponseSerializer {
    /// A ``JSONResponseSerializer`` with its defaults.
    public static var json: JSONResponseSerializer { JSONResponseSerializer() }
}

extension DownloadResponseSerializerProtocol {
    /// A ``DecodableResponseSerializer`` for `type`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    /// - Returns: The serializer.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type, decoder: any DataDecoder = JSONDecoder()
    ) -> Self where Self == DecodableResponseSerializer<T> {
        DecodableResponseSerializer<T>(decoder: decoder)
    }
}

extension DataPreprocessor where Self == PassthroughPreprocessor {
    /// The body unchanged.
    public static var passthrough: PassthroughPreprocessor { PassthroughPreprocessor() }
}

extension DataPreprocessor where Self == GoogleXSSIPreprocessor {
    /// The body without Google's XSSI prefix (``GoogleXSSIPreprocessor``).
    public static var googleXSSI: GoogleXSSIPreprocessor { GoogleXSSIPreprocessor() }
}
