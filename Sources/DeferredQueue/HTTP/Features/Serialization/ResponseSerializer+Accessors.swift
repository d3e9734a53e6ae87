import Foundation

// Alamofire's static accessors, so that a serializer or preprocessor can be
// named where one is expected: `response(responseSerializer: .data)`,
// `DecodableResponseSerializer<T>(dataPreprocessor: .googleXSSI)`.

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

extension DataPreprocessor where Self == PassthroughPreprocessor {
    /// The body unchanged.
    public static var passthrough: PassthroughPreprocessor { PassthroughPreprocessor() }
}

extension DataPreprocessor where Self == GoogleXSSIPreprocessor {
    /// The body without Google's XSSI prefix (``GoogleXSSIPreprocessor``).
    public static var googleXSSI: GoogleXSSIPreprocessor { GoogleXSSIPreprocessor() }
}
