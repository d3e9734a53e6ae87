import Foundation

extension HTTPError {
    /// Why a ``ParameterEncoder`` could not put a request's parameters into it.
    ///
    /// Reached through ``HTTPError/parameterEncodingFailed(reason:)``:
    ///
    /// ```swift
    /// do {
    ///     request = try URLEncodedFormParameterEncoder.default.encode([1, 2, 3], into: request)
    /// } catch HTTPError.parameterEncodingFailed(let reason) {
    ///     print(reason)   // "The parameters could not be URL-encoded: … Wrap arrays and single values …"
    /// }
    /// ```
    public enum ParameterEncodingFailureReason: Sendable, CustomStringConvertible {
        /// The parameters belong in the URL's query, but the request has no URL.
        case missingURL
        /// The request's URL could not be taken apart to add a query to it.
        case malformedURL(URL)
        /// `JSONEncoder` failed on the parameters (for example a `Double.nan`, or an
        /// `encode(to:)` that threw); the error says which value and where.
        case jsonEncodingFailed(error: any Error)
        /// ``URLEncodedFormEncoder`` failed on the parameters: the top-level value is not a
        /// keyed value (a struct, class or dictionary), a custom encoding closure threw, or
        /// an `encode(to:)` misused the encoder.
        case urlEncodingFailed(error: any Error)
        /// A custom ``ParameterEncoding`` or ``ParameterEncoder`` failed: it
        /// threw this, as in Alamofire, or an error that is not an
        /// ``HTTPError``, which the session wraps so.
        case customEncodingFailed(error: any Error)

        /// The error thrown by the underlying encoder, if any.
        public var underlyingError: (any Error)? {
            switch self {
            case .missingURL, .malformedURL: return nil
            case .jsonEncodingFailed(let error), .urlEncodingFailed(let error), .customEncodingFailed(let error): return error
            }
        }

        /// What went wrong and how to fix it.
        public var description: String {
            switch self {
            case .missingURL:
                return "The parameters could not be added to the request's query because the request has no URL. "
                    + "Give the URLRequest a URL before encoding parameters into it."
            case .malformedURL(let url):
                return "The parameters could not be added to the query of \"\(Redaction.url(url))\": the URL could not "
                    + "be split into components. Use an absolute http or https URL."
            case .jsonEncodingFailed(let error):
                return "The parameters could not be encoded as JSON: \(Self.describe(encodingError: error)). "
                    + (Self.isNonFinite(error)
                        ? "JSON has no NaN or infinity: replace such values, or set the encoder's nonConformingFloatEncodingStrategy."
                        : "Check the values and any custom encode(to:).")
            case .urlEncodingFailed(let error):
                return "The parameters could not be URL-encoded: \(Self.describe(encodingError: error)). "
                    + "Wrap arrays and single values in a struct or dictionary, and check any custom "
                    + "encode(to:) or encoding closure."
            case .customEncodingFailed(let error):
                return "A custom parameter encoding failed: \(error)."
            }
        }

        /// `EncodingError`'s own description hides the message and the path; spell them out.
        private static func describe(encodingError error: any Error) -> String {
            guard case .invalidValue(_, let context) = error as? EncodingError else {
                let text = "\(error)"
                return text.hasSuffix(".") ? String(text.dropLast()) : text
            }
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            let location = path.isEmpty ? "at the top level" : "at \(path)"
            let message = context.debugDescription.hasSuffix(".") ? String(context.debugDescription.dropLast()) : context.debugDescription
            return "\(message) (\(location))"
        }

        /// Whether `error` is an encoder's refusal of a NaN or an infinity.
        private static func isNonFinite(_ error: any Error) -> Bool {
            guard case .invalidValue(let value, _) = error as? EncodingError else { return false }
            switch value {
            case let double as Double: return !double.isFinite
            case let float as Float: return !float.isFinite
            default: return false
            }
        }
    }
}
