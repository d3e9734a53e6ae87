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

    /// A ``DataResponseSerializer`` with these settings.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - emptyResponseCodes: Where an empty body is a success (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is a success (default: `HEAD`).
    /// - Returns: The serializer.
    public static func data(
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataResponseSerializer {
        DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
    }
}

extension ResponseSerializer where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with its defaults.
    public static var string: StringResponseSerializer { StringResponseSerializer() }

    /// A ``StringResponseSerializer`` with these settings.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - encoding: Overrides the response's charset.
    ///   - emptyResponseCodes: Where an empty body is `""` (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is `""` (default: `HEAD`).
    /// - Returns: The serializer.
    public static func string(
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> StringResponseSerializer {
        StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
    }
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
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    ///   - emptyResponseCodes: Where an empty body is allowed (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is allowed (default: `HEAD`).
    /// - Returns: The serializer.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> Self where Self == DecodableResponseSerializer<T> {
        DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
    }
}

extension DataResponseSerializerProtocol where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer`` with its defaults.
    public static var data: DataResponseSerializer { DataResponseSerializer() }

    /// A ``DataResponseSerializer`` with these settings.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - emptyResponseCodes: Where an empty body is a success (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is a success (default: `HEAD`).
    /// - Returns: The serializer.
    public static func data(
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataResponseSerializer {
        DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
    }
}

extension DataResponseSerializerProtocol where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with its defaults.
    public static var string: StringResponseSerializer { StringResponseSerializer() }

    /// A ``StringResponseSerializer`` with these settings.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - encoding: Overrides the response's charset.
    ///   - emptyResponseCodes: Where an empty body is `""` (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is `""` (default: `HEAD`).
    /// - Returns: The serializer.
    public static func string(
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> StringResponseSerializer {
        StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
    }
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
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    ///   - emptyResponseCodes: Where an empty body is allowed (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is allowed (default: `HEAD`).
    /// - Returns: The serializer.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> Self where Self == DecodableResponseSerializer<T> {
        DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
    }
}

extension DownloadResponseSerializerProtocol where Self == DataResponseSerializer {
    /// A ``DataResponseSerializer`` with its defaults.
    public static var data: DataResponseSerializer { DataResponseSerializer() }

    /// A ``DataResponseSerializer`` with these settings.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - emptyResponseCodes: Where an empty body is a success (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is a success (default: `HEAD`).
    /// - Returns: The serializer.
    public static func data(
        dataPreprocessor: any DataPreprocessor = DataResponseSerializer.defaultDataPreprocessor,
        emptyResponseCodes: Set<Int> = DataResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DataResponseSerializer.defaultEmptyRequestMethods
    ) -> DataResponseSerializer {
        DataResponseSerializer(
            dataPreprocessor: dataPreprocessor, emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
    }
}

extension DownloadResponseSerializerProtocol where Self == StringResponseSerializer {
    /// A ``StringResponseSerializer`` with its defaults.
    public static var string: StringResponseSerializer { StringResponseSerializer() }

    /// A ``StringResponseSerializer`` with these settings.
    ///
    /// - Parameters:
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - encoding: Overrides the response's charset.
    ///   - emptyResponseCodes: Where an empty body is `""` (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is `""` (default: `HEAD`).
    /// - Returns: The serializer.
    public static func string(
        dataPreprocessor: any DataPreprocessor = StringResponseSerializer.defaultDataPreprocessor,
        encoding: String.Encoding? = nil,
        emptyResponseCodes: Set<Int> = StringResponseSerializer.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = StringResponseSerializer.defaultEmptyRequestMethods
    ) -> StringResponseSerializer {
        StringResponseSerializer(
            dataPreprocessor: dataPreprocessor, encoding: encoding,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
    }
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
    ///   - dataPreprocessor: Runs on the body first (default: unchanged).
    ///   - decoder: Decodes the body (default: a new `JSONDecoder`).
    ///   - emptyResponseCodes: Where an empty body is allowed (default: 204, 205).
    ///   - emptyRequestMethods: Where an empty body is allowed (default: `HEAD`).
    /// - Returns: The serializer.
    public static func decodable<T: Decodable & Sendable>(
        of type: T.Type,
        dataPreprocessor: any DataPreprocessor = DecodableResponseSerializer<T>.defaultDataPreprocessor,
        decoder: any DataDecoder = JSONDecoder(),
        emptyResponseCodes: Set<Int> = DecodableResponseSerializer<T>.defaultEmptyResponseCodes,
        emptyRequestMethods: Set<HTTPMethod> = DecodableResponseSerializer<T>.defaultEmptyRequestMethods
    ) -> Self where Self == DecodableResponseSerializer<T> {
        DecodableResponseSerializer<T>(
            dataPreprocessor: dataPreprocessor, decoder: decoder,
            emptyResponseCodes: emptyResponseCodes, emptyRequestMethods: emptyRequestMethods
        )
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
