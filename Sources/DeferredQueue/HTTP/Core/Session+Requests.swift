import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Session {
    /// Changes the `URLRequest` a factory built, before its parameters are
    /// encoded (Alamofire's `requestModifier:`); a throw fails the request
    /// with ``HTTPError/createURLRequestFailed(error:)``.
    public typealias RequestModifier = @Sendable (inout URLRequest) throws -> Void

    /// Creates a request, which starts when its first handler is added.
    ///
    /// ```swift
    /// session.request(url)                                                   // GET
    /// session.request(url, parameters: ["q": "swift", "page": 2])            // ?page=2&q=swift
    /// session.request(url, method: .post, parameters: ["name": "pen"], encoding: JSONEncoding.default)
    /// session.request(url, method: .put, body: data, requestModifier: { $0.timeoutInterval = 5 })
    /// ```
    ///
    /// An invalid URL does not crash and creates no task: every handler of
    /// the returned request receives ``HTTPError/invalidURL(_:)``; so do
    /// parameters that cannot be encoded
    /// (``HTTPError/parameterEncodingFailed(reason:)``) and a modifier that
    /// throws (``HTTPError/createURLRequestFailed(error:)``).
    ///
    /// - Parameters:
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method.
    ///   - parameters: Untyped parameters (prefer an `Encodable` value and the
    ///     `encoder:` variant).
    ///   - encoding: How to encode `parameters` (default: a URL-encoded form,
    ///     in the query for GET, HEAD and DELETE and in the body otherwise).
    ///   - headers: Header fields to send; they win over the session's defaults.
    ///   - body: The request body (replaced by parameters encoded into the body).
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - timeout: Seconds without any data before an attempt fails with a
    ///     time-out; ``defaultTimeout`` when `nil`.
    ///   - requestModifier: Changes the `URLRequest` before the parameters are encoded.
    /// - Returns: The request, ready for handlers; the first one starts it.
    public func request(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoding: any ParameterEncoding = URLEncoding.default,
        headers: HTTPHeaders? = nil,
        body: Data? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        timeout: Double? = nil,
        requestModifier: RequestModifier? = nil
    ) -> DataRequest {
        do {
            var urlRequest = try makeURLRequest(url, method: method, headers: headers, timeout: timeout, modifier: requestModifier)
            if let body { urlRequest.httpBody = body }
            guard let parameters else {
                return DataRequest(session: self, urlRequest: urlRequest, interceptor: interceptor, timeoutIsAssigned: true)
                    .resumes(automatically: shouldAutomaticallyResume)
            }
            let encoded = try Self.encode(parameters, with: encoding, into: urlRequest)
            return DataRequest(session: self, urlRequest: encoded, interceptor: interceptor)
                .resumes(automatically: shouldAutomaticallyResume)
        } catch {
            return DataRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"))
        }
    }

    /// Creates a request whose parameters are encoded into its URL query or
    /// body; the first handler starts it.
    ///
    /// ```swift
    /// session.request(url, method: .post, parameters: Login(user: "x"), encoder: JSONParameterEncoder.default)
    /// session.request(url, parameters: ["page": "2", "q": "swift"])   // ?page=2&q=swift
    /// ```
    ///
    /// A URL that is invalid, or parameters that cannot be encoded, create no
    /// task: every handler receives ``HTTPError/invalidURL(_:)`` or
    /// ``HTTPError/parameterEncodingFailed(reason:)``.
    ///
    /// - Parameters:
    ///   - url: The URL, as a `String`, `URL` or `URLComponents`.
    ///   - method: The HTTP method.
    ///   - parameters: The parameters, any `Encodable` value; `nil` for none.
    ///   - encoder: How to encode them (default: a URL-encoded form, in the
    ///     query for GET, HEAD and DELETE and in the body otherwise).
    ///   - headers: Header fields to send; they win over the encoder's and the session's.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    ///   - timeout: Seconds without any data before an attempt fails with a time-out.
    ///   - requestModifier: Changes the `URLRequest` before the parameters are encoded.
    /// - Returns: The request, ready for handlers.
    public func request<Parameters: Encodable & Sendable>(
        _ url: any URLConvertible,
        method: HTTPMethod = .get,
        parameters: Parameters? = nil,
        encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default,
        headers: HTTPHeaders? = nil,
        interceptor: (any RequestInterceptor)? = nil, shouldAutomaticallyResume: Bool? = nil,
        timeout: Double? = nil,
        requestModifier: RequestModifier? = nil
    ) -> DataRequest {
        do {
            let urlRequest = try makeURLRequest(url, method: method, headers: headers, timeout: timeout, modifier: requestModifier)
            let encoded = try Self.encode(parameters, with: encoder, into: urlRequest)
            return DataRequest(session: self, urlRequest: encoded, interceptor: interceptor)
                .resumes(automatically: shouldAutomaticallyResume)
        } catch {
            return DataRequest(session: self, failedWith: error as? HTTPError ?? .invalidURL("\(url)"))
        }
    }

    /// `urlRequest` with untyped `parameters`, as ``HTTPError``s fail.
    static func encode(_ parameters: Parameters, with encoding: any ParameterEncoding, into urlRequest: URLRequest) throws(HTTPError) -> URLRequest {
        do {
            return try encoding.encode(urlRequest, with: parameters)
        } catch let error as HTTPError {
            throw error
        } catch {
            // The library's encoders throw HTTPErrors: this one is the caller's.
            throw .parameterEncodingFailed(reason: .customEncodingFailed(error: error))
        }
    }

    /// `urlRequest` with `Encodable` `parameters`, as ``HTTPError``s fail.
    static func encode<P: Encodable & Sendable>(
        _ parameters: P?, with encoder: any ParameterEncoder, into urlRequest: URLRequest
    ) throws(HTTPError) -> URLRequest {
        do {
            return try encoder.encode(parameters, into: urlRequest)
        } catch let error as HTTPError {
            throw error
        } catch {
            // The library's encoders throw HTTPErrors: this one is the caller's.
            throw .parameterEncodingFailed(reason: .customEncodingFailed(error: error))
        }
    }

    /// Creates a request from a prepared `URLRequest` or a
    /// ``URLRequestConvertible`` (a router); the first handler starts it.
    ///
    /// Its `timeoutInterval` is the idle timeout. A request whose URL is
    /// missing or not `http`/`https` with a host gets ``HTTPError/invalidURL(_:)``;
    /// a convertible that throws, ``HTTPError/createURLRequestFailed(error:)``.
    ///
    /// - Parameters:
    ///   - convertible: The request to send, or what makes it.
    ///   - interceptor: Adapts and retries this request, after the session's interceptor.
    ///   - shouldAutomaticallyResume: Whether the first handler starts the
    ///     request; `nil` (the default): the session's ``startRequestsImmediately``.
    /// - Returns: The request, ready for handlers.
    public func request(
        _ convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil,
        shouldAutomaticallyResume: Bool? = nil
    ) -> DataRequest {
        switch makeURLRequest(from: convertible) {
        case .success(let urlRequest):
            DataRequest(session: self, urlRequest: urlRequest, interceptor: interceptor, madeFrom: convertible)
                .resumes(automatically: shouldAutomaticallyResume)
        case .failure(let error): DataRequest(session: self, failedWith: error, madeFrom: convertible)
        }
    }

    /// The request `convertible` makes, with a URL a session sends to.
    func makeURLRequest(from convertible: any URLRequestConvertible) -> Result<URLRequest, HTTPError> {
        SessionCore.urlRequest(from: convertible)
    }
}

extension SessionCore {
    /// The request `convertible` makes, with a URL a session sends to.
    static func urlRequest(from convertible: any URLRequestConvertible) -> Result<URLRequest, HTTPError> {
        let urlRequest: URLRequest
        do {
            urlRequest = try convertible.asURLRequest()
        } catch {
            return .failure(error as? HTTPError ?? .createURLRequestFailed(error: error))
        }
        guard let url = urlRequest.url, url.isHTTPURLWithHost else {
            return .failure(.invalidURL(urlRequest.url?.absoluteString ?? "(no URL)"))
        }
        return .success(urlRequest)
    }
}

extension Session {
    /// A `URLRequest` for `url` with the method, headers and idle timeout
    /// (always assigned: see ``Request/timeoutIsAssigned``).
    func makeURLRequest(
        _ url: any URLConvertible, method: HTTPMethod, headers: HTTPHeaders?, timeout: Double?,
        modifier: RequestModifier? = nil
    ) throws -> URLRequest {
        var urlRequest = URLRequest(url: try url.asURL())
        // A new request's method is already GET; setting it costs a
        // case-insensitive comparison on corelibs (NSURLRequest normalises it).
        if method != .get { urlRequest.httpMethod = method.rawValue }
        // Assigned whole: Foundation's `addValue(_:forHTTPHeaderField:)`
        // drops a value holding CR, LF or NUL without a word on Linux, and
        // such a value must reach the check before sending, to be refused.
        if let headers, !headers.isEmpty { urlRequest.allHTTPHeaderFields = headers.dictionary }
        urlRequest.timeoutInterval = timeout ?? Self.defaultTimeout
        if let modifier {
            do {
                try modifier(&urlRequest)
            } catch {
                throw HTTPError.createURLRequestFailed(error: error)
            }
        }
        return urlRequest
    }
}

/// Creates a request on ``Session/default``; the first handler starts it.
/// See ``Session/request(_:method:parameters:encoding:headers:body:interceptor:shouldAutomaticallyResume:timeout:requestModifier:)``.
///
/// ```swift
/// request("https://b.hatena.ne.jp/entry/json/?url=…")
///     .validate()
///     .responseDecodable(of: Entry.self) { response in … }
/// ```
///
/// - Parameters:
///   - url: The URL, as a `String`, `URL` or `URLComponents`.
///   - method: The HTTP method.
///   - parameters: Untyped parameters.
///   - encoding: How to encode `parameters`.
///   - headers: Header fields to send.
///   - body: The request body.
///   - interceptor: Adapts and retries this request.
///   - timeout: Seconds without any data before an attempt fails with a
///     time-out (default 60).
///   - requestModifier: Changes the `URLRequest` before the parameters are encoded.
/// - Returns: The request, ready for handlers; the first one starts it.
public func request(
    _ url: any URLConvertible,
    method: HTTPMethod = .get,
    parameters: Parameters? = nil,
    encoding: any ParameterEncoding = URLEncoding.default,
    headers: HTTPHeaders? = nil,
    body: Data? = nil,
    interceptor: (any RequestInterceptor)? = nil,
    timeout: Double? = nil,
    requestModifier: Session.RequestModifier? = nil
) -> DataRequest {
    Session.default.request(
        url, method: method, parameters: parameters, encoding: encoding, headers: headers, body: body,
        interceptor: interceptor, timeout: timeout, requestModifier: requestModifier
    )
}

/// Creates a request with encoded parameters on ``Session/default``; see
/// ``Session/request(_:method:parameters:encoder:headers:interceptor:shouldAutomaticallyResume:timeout:requestModifier:)``.
///
/// - Parameters:
///   - url: The URL, as a `String`, `URL` or `URLComponents`.
///   - method: The HTTP method.
///   - parameters: The parameters, any `Encodable` value.
///   - encoder: How to encode them (default: a URL-encoded form).
///   - headers: Header fields to send.
///   - interceptor: Adapts and retries this request.
///   - timeout: Seconds without any data before an attempt fails with a time-out.
///   - requestModifier: Changes the `URLRequest` before the parameters are encoded.
/// - Returns: The request, ready for handlers.
public func request<Parameters: Encodable & Sendable>(
    _ url: any URLConvertible,
    method: HTTPMethod = .get,
    parameters: Parameters? = nil,
    encoder: any ParameterEncoder = URLEncodedFormParameterEncoder.default,
    headers: HTTPHeaders? = nil,
    interceptor: (any RequestInterceptor)? = nil,
    timeout: Double? = nil,
    requestModifier: Session.RequestModifier? = nil
) -> DataRequest {
    Session.default.request(
        url, method: method, parameters: parameters, encoder: encoder, headers: headers,
        interceptor: interceptor, timeout: timeout, requestModifier: requestModifier
    )
}

/// Creates a request from a prepared `URLRequest` or a
/// ``URLRequestConvertible`` on ``Session/default``.
///
/// - Parameters:
///   - convertible: The request to send, or what makes it.
///   - interceptor: Adapts and retries this request.
/// - Returns: The request, ready for handlers.
public func request(_ convertible: any URLRequestConvertible, interceptor: (any RequestInterceptor)? = nil) -> DataRequest {
    Session.default.request(convertible, interceptor: interceptor)
}
