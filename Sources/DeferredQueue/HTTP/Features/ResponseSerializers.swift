import Foundation

/// Turns a finished transfer into the value a handler asked for. Pure
/// functions of the raw response; they run on the request's queue.
enum ResponseSerializers {
    /// The body; empty is a success only where an empty body is expected
    /// (204, 205, `HEAD`).
    static func data(_ raw: RawResponse) -> Result<Data, HTTPError> {
        if let data = raw.data, !data.isEmpty { return .success(data) }
        if raw.allowsEmptyBody { return .success(Data()) }
        return .failure(.responseSerializationFailed(reason: .inputDataNilOrZeroLength))
    }

    /// The body as text: `encoding` if given, else the response's charset,
    /// else UTF-8, else Latin-1.
    static func string(_ raw: RawResponse, encoding: String.Encoding?) -> Result<String, HTTPError> {
        data(raw).flatMap { data in
            data.isEmpty ? .success("") : decodeText(
                data, explicit: encoding, contentType: raw.response?.value(forHTTPHeaderField: "Content-Type")
            )
        }
    }

    /// The body parsed as JSON. An empty body is always an error here; the
    /// body `null` is ``JSON/null``.
    static func json(_ raw: RawResponse) -> Result<JSON, HTTPError> {
        nonEmptyData(raw).flatMap { data in
            Result { try JSON(parsing: data) }.mapError { error in
                guard let syntax = error as? JSON.ParseError else {
                    return .responseSerializationFailed(reason: .decodingFailed(error: error))
                }
                return .responseSerializationFailed(reason: .jsonSyntax(syntax))
            }
        }
    }

    /// The body decoded with `decoder`. An empty body is always an error here.
    static func decodable<T: Decodable>(_ raw: RawResponse, as type: T.Type, decoder: JSONDecoder) -> Result<T, HTTPError> {
        nonEmptyData(raw).flatMap { data in
            Result { try decoder.decode(T.self, from: data) }
                .mapError { .responseSerializationFailed(reason: .decodingFailed(error: $0)) }
        }
    }

    private static func nonEmptyData(_ raw: RawResponse) -> Result<Data, HTTPError> {
        guard let data = raw.data, !data.isEmpty else {
            return .failure(.responseSerializationFailed(reason: .inputDataNilOrZeroLength))
        }
        return .success(data)
    }
}
