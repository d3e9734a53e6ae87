import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOHTTP2
import Testing
@testable import DeferredQueueAsyncHTTPClient

/// AsyncHTTPClient (created with `negotiatesHTTP2: true`) negotiates HTTP/2
/// where the server offers it, and passes HTTP/2's own errors on: each maps to the code the same fault gets over
/// HTTP/1.1, not to `unknown`.
@Suite("AsyncHTTPClient: HTTP/2's errors as URLError codes")
struct HTTP2ErrorMappingTests {
    @Test func aResponseHTTP2ForbidsIsABadServerResponse() {
        let malformed: [any Error] = [
            NIOHTTP2Errors.contentLengthViolated(),
            NIOHTTP2Errors.forbiddenHeaderField(name: "transfer-encoding", value: "chunked"),
            NIOHTTP2Errors.invalidHTTP2HeaderFieldName("Upper"),
            NIOHTTP2Errors.invalidStatusValue("1000"),
        ]
        for error in malformed {
            #expect(ErrorMapping.code(for: error) == .badServerResponse, "\(error)")
            #expect(ErrorMapping.urlError(for: error, url: nil).code == .badServerResponse)
        }
    }

    /// How SwiftNIO reports a response it refused (seen against a python-h2
    /// server answering `content-length: 100` with 10 bytes, or `transfer-encoding`).
    @Test func aStreamResetForBreakingHTTP2sRulesIsABadServerResponse() {
        let refused = NIOHTTP2Errors.streamClosed(streamID: HTTP2StreamID(1), errorCode: .protocolError)
        #expect(ErrorMapping.code(for: refused) == .badServerResponse)
    }

    @Test func aStreamTheServerResetIsAConnectionLost() {
        for code in [HTTP2ErrorCode.cancel, .noError, .refusedStream, .internalError, .enhanceYourCalm] {
            let reset = NIOHTTP2Errors.streamClosed(streamID: HTTP2StreamID(1), errorCode: code)
            #expect(ErrorMapping.code(for: reset) == .networkConnectionLost, "\(code)")
        }
        #expect(ErrorMapping.code(for: NIOHTTP2Errors.ioOnClosedConnection()) == .networkConnectionLost)
    }

    /// The transport sends an idempotent request again, unasked, only when
    /// the server cannot have processed it: of HTTP/2's resets,
    /// REFUSED_STREAM, and CANCEL, which SwiftNIO gives the streams above a
    /// GOAWAY's last stream (nginx's after `keepalive_requests`).
    @Test func onlyARefusedOrDroppedStreamIsSentAgainByTheTransport() {
        for code in [HTTP2ErrorCode.refusedStream, .cancel] {
            let refused = NIOHTTP2Errors.streamClosed(streamID: HTTP2StreamID(1), errorCode: code)
            #expect(AsyncHTTPClientAttempt.lostItsConnection(refused), "\(code)")
        }
        for code in [HTTP2ErrorCode.noError, .internalError, .enhanceYourCalm, .protocolError] {
            let reset = NIOHTTP2Errors.streamClosed(streamID: HTTP2StreamID(1), errorCode: code)
            #expect(!AsyncHTTPClientAttempt.lostItsConnection(reset), "\(code)")
        }
    }
}
