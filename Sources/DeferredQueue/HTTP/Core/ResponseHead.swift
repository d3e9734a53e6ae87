import Foundation
import LockSupport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response head as a transport received it — status, fields, URL — whose
/// `HTTPURLResponse` is made only when something asks for one.
///
/// The session judges a response (redirects, cookies, validation, retries,
/// the built-in serializers) from its head alone. An `HTTPURLResponse` is
/// what handlers, monitors and validators written against Alamofire's API
/// receive; corelibs Foundation canonicalises every field name as it makes
/// one, which costs more than the rest of a small request's handling, so a
/// transport that does not get one for free (AsyncHTTPClient) reports the
/// head, and the response is made once, on first use, and kept.
///
/// A transport that already has an `HTTPURLResponse` (URLSession) reports
/// it: its head then reads it, and costs no allocation. URLSessionTransport,
/// which reads every field of a head anyway to judge it, hands over the
/// fields it read too: corelibs' own lookup lowercases every field name
/// each time a field is asked for.
public struct ResponseHead: Sendable {
    /// The response itself, a ``ReadHead`` or a ``WireHead``: one plain
    /// reference. An enum of three classes would keep its case in the
    /// reference's spare bits, where LeakSanitizer finds no pointer, and
    /// would report every head still alive at exit as leaked.
    private let object: any AnyObject & Sendable

    private enum Storage {
        /// A transport's own response: nothing to make, nothing allocated.
        case response(HTTPURLResponse)
        /// A transport's own response and its fields, read once.
        case read(ReadHead)
        case wire(WireHead)
    }

    /// ``object``, by its kind (both head classes are final: their exact type decides).
    private var storage: Storage {
        let kind = ObjectIdentifier(type(of: object))
        if kind == ObjectIdentifier(ReadHead.self) { return .read(unsafeDowncast(object, to: ReadHead.self)) }
        if kind == ObjectIdentifier(WireHead.self) { return .wire(unsafeDowncast(object, to: WireHead.self)) }
        return .response(unsafeDowncast(object, to: HTTPURLResponse.self))
    }

    /// A transport's own response and the fields it read of it. An object,
    /// so that a head stays one reference wide: every copy of a wider one
    /// goes through a switch over its cases.
    private final class ReadHead: Sendable {
        let response: HTTPURLResponse
        let fields: HTTPHeaders

        init(response: HTTPURLResponse, fields: HTTPHeaders) {
            self.response = response
            self.fields = fields
        }
    }

    /// A head read off the wire, and the response made of it once asked
    /// for (its one lock: ``made``).
    private final class WireHead: Sendable {
        let url: URL
        let statusCode: Int
        let httpVersion: String
        let headers: HTTPHeaders
        let made = Mutex<HTTPURLResponse?>(nil)

        init(url: URL, statusCode: Int, httpVersion: String, headers: HTTPHeaders) {
            self.url = url
            self.statusCode = statusCode
            self.httpVersion = httpVersion
            self.headers = headers
        }

        var response: HTTPURLResponse {
            made.withLock(owner: self) { made in
                if let made { return made }
                // Repeated names joined under their first spelling, as URLSession hands them over.
                // The initialiser is failable in name only: neither corelibs' nor Darwin's returns nil.
                let response = HTTPURLResponse(
                    url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headers.dictionary
                ) ?? HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: nil)!
                made = response
                return response
            }
        }
    }

    /// A head read off the wire.
    ///
    /// - Parameters:
    ///   - url: The URL the response answers.
    ///   - statusCode: The status code.
    ///   - httpVersion: The version, e.g. `"HTTP/1.1"`.
    ///   - headers: The fields in the order received; repeated names stay
    ///     separate here and are joined with `", "` where one value is asked
    ///     for (as URLSession does).
    public init(url: URL, statusCode: Int, httpVersion: String, headers: HTTPHeaders) {
        object = WireHead(url: url, statusCode: statusCode, httpVersion: httpVersion, headers: headers)
    }

    /// The head of a response a transport already has.
    public init(_ response: HTTPURLResponse) {
        object = response
    }

    /// The head of a response a transport already has, and its fields as
    /// `response.allHeaderFields` gives them (one per name).
    init(_ response: HTTPURLResponse, fields: HTTPHeaders) {
        object = ReadHead(response: response, fields: fields)
    }

    /// The URL the response answers.
    public var url: URL {
        switch storage {
        case .response(let response): return response.url ?? URL(fileURLWithPath: "/")
        case .read(let read): return read.response.url ?? URL(fileURLWithPath: "/")
        case .wire(let head): return head.url
        }
    }

    /// The status code, e.g. `200`.
    public var statusCode: Int {
        switch storage {
        case .response(let response): return response.statusCode
        case .read(let read): return read.response.statusCode
        case .wire(let head): return head.statusCode
        }
    }

    /// The `HTTPURLResponse`, made on first use (then the same object).
    public var response: HTTPURLResponse {
        switch storage {
        case .response(let response): return response
        case .read(let read): return read.response
        case .wire(let head): return head.response
        }
    }

    /// The address of the one object the head holds (tests: a head is that
    /// address, with no tag bits a leak checker would have to see through).
    var objectAddress: UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }

    /// Whether repeated fields come joined with ", " (as URLSession hands
    /// them over), not one value each (a head read off the wire).
    var joinsRepeatedFields: Bool {
        if case .wire = storage { return false }
        return true
    }

    /// Whether the head was read off the wire rather than given as a response (tests).
    var isFromTheWire: Bool {
        if case .wire = storage { return true }
        return false
    }

    /// Whether ``response`` was made (tests).
    var isResponseMade: Bool {
        switch storage {
        case .response, .read: return true
        case .wire(let head): return head.made.withLock(owner: head) { $0 != nil }
        }
    }

    /// The value of the field `name` (any case); repeated fields joined with `", "`.
    public func value(forHTTPHeaderField name: String) -> String? {
        switch storage {
        case .response(let response):
            return response.value(forHTTPHeaderField: name)
        case .read(let read):
            return read.fields[name]
        case .wire(let head):
            return head.headers[name]
        }
    }

    /// Every value of the fields named `name` (any case), each as received
    /// (a response made by a transport that joins repeats gives one).
    func values(forHTTPHeaderField name: String) -> [String] {
        switch storage {
        case .response(let response):
            // A case-insensitive lookup first: `allHeaderFields` costs ten times as much.
            guard response.value(forHTTPHeaderField: name) != nil else { return [] }
            return response.allHeaderFields.compactMap { key, value in
                guard let key = key as? String, HTTPHeaders.namesMatch(key, name) else { return nil }
                return value as? String
            }
        case .read(let read):
            return read.fields.values(for: name)
        case .wire(let head):
            return head.headers.values(for: name)
        }
    }

    /// Every field, a repeated name once (its values joined), by name.
    var allHeaderFields: [String: String] {
        switch storage {
        case .response(let response):
            return response.allHeaderFields.reduce(into: [:]) { fields, field in
                if let name = field.key as? String, let value = field.value as? String { fields[name] = value }
            }
        case .read(let read):
            // Read from a dictionary: each name once, as the response has it.
            return Dictionary(read.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        case .wire(let head):
            return head.headers.dictionary
        }
    }

    /// The length `Content-Length` announces, `-1` when it is absent or not a number.
    var expectedContentLength: Int64 {
        switch storage {
        case .response(let response):
            return response.expectedContentLength
        case .read(let read):
            return read.response.expectedContentLength
        case .wire:
            guard let text = value(forHTTPHeaderField: "Content-Length")?.trimmingCharacters(in: .whitespaces),
                  !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int64(text)
            else { return -1 }
            return length
        }
    }
}
