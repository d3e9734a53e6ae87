import Foundation

// Alamofire's static accessors: `request(url, parameters: login, encoder: .json)`.

extension ParameterEncoder where Self == JSONParameterEncoder {
    /// ``JSONParameterEncoder/default``.
    public static var json: JSONParameterEncoder { .default }

    /// A ``JSONParameterEncoder`` with `encoder`.
    ///
    /// - Parameter encoder: Encodes the parameters.
    /// - Returns: The parameter encoder.
    public static func json(encoder: JSONEncoder = JSONEncoder()) -> JSONParameterEncoder {
        JSONParameterEncoder(encoder: encoder)
    }
}

extension ParameterEncoder where Self == URLEncodedFormParameterEncoder {
    /// ``URLEncodedFormParameterEncoder/default``.
    public static var urlEncodedForm: URLEncodedFormParameterEncoder { .default }

    /// A ``URLEncodedFormParameterEncoder`` with `encoder` and `destination`.
    ///
    /// - Parameters:
    ///   - encoder: The form encoder.
    ///   - destination: Where the form goes (default: by method).
    /// - Returns: The parameter encoder.
    public static func urlEncodedForm(
        encoder: URLEncodedFormEncoder = URLEncodedFormEncoder(),
        destination: URLEncodedFormParameterEncoder.Destination = .methodDependent
    ) -> URLEncodedFormParameterEncoder {
        URLEncodedFormParameterEncoder(encoder: encoder, destination: destination)
    }
}
