import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

/// What the session decides for every transport: the idle timeout an
/// attempt carries and the collector that bounds a collected body.
@Suite("Transport seam: attempts and the body collector")
struct TransportSeamTests {
    private func attempt(timeout: Double) -> HTTPTransportAttempt {
        var request = URLRequest(url: URL(string: "http://127.0.0.1/")!)
        request.timeoutInterval = timeout
        return HTTPTransportAttempt(request: request, collectsBody: true)
    }

    @Test func anAttemptCarriesATimeoutEveryTransportCanApply() {
        #expect(attempt(timeout: -1).idleTimeout == Session.defaultTimeout)
        #expect(attempt(timeout: 0).idleTimeout == Session.defaultTimeout)
        #expect(attempt(timeout: .nan).idleTimeout == Session.defaultTimeout)
        #expect(attempt(timeout: .infinity).idleTimeout == HTTPTransportAttempt.maximumIdleTimeout)
        #expect(attempt(timeout: 1e300).idleTimeout == HTTPTransportAttempt.maximumIdleTimeout)
        #expect(attempt(timeout: 0.25).idleTimeout == 0.25)
        #expect(attempt(timeout: 5).idleTimeout == 5)
    }

    /// A request handed to a transport without a session is judged by the
    /// attempt; one the session checked is not judged again, unless a
    /// request is assigned after (a transport that wraps another and rewrites it).
    @Test func anAttemptNamesWhatASessionWouldRefuse() {
        let url = URL(string: "http://127.0.0.1/")!
        var good = URLRequest(url: url)
        good.setValue("  padded  ", forHTTPHeaderField: "X-Padded")
        #expect(HTTPTransportAttempt(request: good, collectsBody: true).requestSyntaxViolation == nil)
        var badName = URLRequest(url: url)
        badName.setValue("1", forHTTPHeaderField: "X Injected")
        var badValue = URLRequest(url: url)
        badValue.allHTTPHeaderFields = ["X-Token": "1\r\nX-Injected: 1"]
        var badMethod = URLRequest(url: url)
        badMethod.httpMethod = "GET / HTTP/1.1\r\nX: 1"
        typealias Reason = HTTPError.URLRequestValidationFailureReason
        let cases: [(URLRequest, (Reason) -> Bool)] = [
            (badName, { if case .invalidHeaderName("X Injected") = $0 { true } else { false } }),
            (badValue, { if case .invalidHeaderValue(name: "X-Token") = $0 { true } else { false } }),
            (badMethod, { if case .invalidMethod = $0 { true } else { false } }),
        ]
        for (request, isExpected) in cases {
            var attempt = HTTPTransportAttempt(request: request, collectsBody: true)
            guard case .urlRequestValidationFailed(let reason)? = attempt.requestSyntaxViolation else {
                Issue.record("no violation found in \(String(describing: request.allHTTPHeaderFields))")
                continue
            }
            #expect(isExpected(reason), "\(reason)")
            attempt.syntaxChecked = true
            #expect(attempt.requestSyntaxViolation == nil)
            attempt.request = request
            #expect(attempt.requestSyntaxViolation != nil, "assigning a request clears the session's check")
            attempt.syntaxChecked = true
            attempt.request.setValue("2", forHTTPHeaderField: "X-Other")
            #expect(attempt.requestSyntaxViolation != nil, "changing the request in place clears it too")
        }
    }

    @Test func anAttemptWithoutALimitCollectsWithoutOne() {
        let unlimited = HTTPTransportAttempt(request: URLRequest(url: URL(string: "http://127.0.0.1/")!), collectsBody: true)
        #expect(unlimited.maximumBodySize == .max)
        #expect(unlimited.makeBodyCollector().limit == .max)
        let negative = HTTPTransportAttempt(
            request: URLRequest(url: URL(string: "http://127.0.0.1/")!), collectsBody: true, maximumBodySize: -5
        )
        #expect(negative.makeBodyCollector().limit == 0)
    }

    @Test func theCollectorKeepsABodyUpToItsLimitExactly() throws {
        var collector = HTTPBodyCollector(limit: 10)
        try collector.append(Data("hello".utf8))
        try Data(" you".utf8).withUnsafeBytes { try collector.append(contentsOf: $0) }
        try collector.append(Data("!".utf8))
        #expect(collector.body == Data("hello you!".utf8))
        #expect(collector.error == nil)
        #expect(collector.take() == Data("hello you!".utf8))
        #expect(collector.body.isEmpty)
    }

    @Test func theFirstChunkPastTheLimitThrowsAndDropsTheBodyForGood() {
        var collector = HTTPBodyCollector(limit: 10, expectedLength: 8)
        #expect(throws: Never.self) { try collector.append(Data(count: 8)) }
        #expect(throws: HTTPError.self) { try collector.append(Data(count: 3)) }
        #expect(collector.body.isEmpty)
        #expect(collector.exceededLimit)
        // Smaller chunks do not sneak in afterwards.
        #expect(throws: HTTPError.self) { try collector.append(Data(count: 1)) }
        guard case .responseTooLarge(let limit)? = collector.error else {
            Issue.record("expected responseTooLarge, got \(String(describing: collector.error))")
            return
        }
        #expect(limit == 10)
    }

    @Test func aZeroLimitRefusesAnyByteButAcceptsAnEmptyBody() throws {
        var collector = HTTPBodyCollector(limit: 0)
        try collector.append(Data())
        #expect(collector.error == nil)
        #expect(throws: HTTPError.self) { try collector.append(Data(count: 1)) }
    }

    /// What every transport and the progress of a request take for the
    /// length of the body they hand over: only an unencoded one's.
    @Test(arguments: [
        (Int64?(1_234), String?.none, Int64?(1_234)),
        (0, nil, 0),
        (1_234, "identity", 1_234),
        (1_234, " IDENTITY ", 1_234),
        (1_234, "gzip", nil),
        (1_234, "identity, gzip", nil),
        (1_234, "", nil),
        (-1, nil, nil),
        (nil, nil, nil),
    ])
    func theDecodedLengthIsTheContentLengthOfAnUnencodedBodyOnly(length: Int64?, encoding: String?, decoded: Int64?) {
        #expect(HTTPBodyCollector.decodedLength(contentLength: length, contentEncoding: encoding) == decoded)
    }

    @Test(arguments: [
        ([String](), true), (["chunked"], true), (["Chunked"], true), (["  chunked "], true), (["\tchunked"], true),
        (["chunked,"], false), (["chunked ,"], false), (["chunked\t"], false), (["gzip, chunked"], false),
        (["chunked, gzip"], false), (["chunked", "chunked"], false), (["chunked, chunked"], false), ([""], false), (["xchunked"], false),
    ])
    func onlyChunkedAloneIsATransferCodingAResponseMayDeclare(fields: [String], allowed: Bool) {
        #expect(TransferCoding.isChunkedAlone(fields) == allowed)
    }

    @Test func aLyingContentLengthReservesNothingAndChangesNothing() throws {
        // An announced length past the limit or huge must not be allocated for.
        var collector = HTTPBodyCollector(limit: 4, expectedLength: Int.max)
        try collector.append(Data("abcd".utf8))
        #expect(collector.body == Data("abcd".utf8))
    }
}
