import DeferredQueueTesting
import Foundation
import TestSupport
import Testing
@testable import DeferredQueue

/// RFC 9110 lets a server answer `206 Partial Content` only to a `Range`
/// request. A `206` to a request for the whole resource is a fragment
/// passed off as the response: it fails, unless its `Content-Range` spans
/// the whole entity and its `Content-Length` is that long (which the
/// transport holds the body to). Judged once, on MockTransport.
@Suite("A 206 nobody asked for fails")
struct PartialContentTests {
    static let fragment = Data("hello".utf8)

    let fixture = PolicyFixture { request in
        switch request.url?.path {
        case "/part": .status(206, headers: ["Content-Range": "bytes 100-104/1000"], body: PartialContentTests.fragment)
        case "/no-range": .status(206, body: PartialContentTests.fragment)
        case "/whole": .status(206, headers: ["Content-Range": "bytes 0-4/5", "Content-Length": "5"], body: PartialContentTests.fragment)
        // The range claims the whole entity; the body is 1% of it.
        case "/whole-short":
            .status(206, headers: ["Content-Range": "bytes 0-499/500", "Content-Length": "5"], body: PartialContentTests.fragment)
        // Nothing holds the body to the range's length.
        case "/whole-unframed": .status(206, headers: ["Content-Range": "bytes 0-499/500"], body: PartialContentTests.fragment)
        case "/signed": .status(206, headers: ["Content-Range": "bytes +0-+4/+5", "Content-Length": "5"], body: PartialContentTests.fragment)
        default: nil
        }
    }

    @Test(arguments: ["/part", "/no-range", "/whole-short", "/whole-unframed", "/signed"])
    func aPartOfTheEntityFailsARequestForTheWhole(path: String) async throws {
        let data = await response { fixture.session.request(fixture.url(path)).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(data?.error?.urlError?.code == .badServerResponse, "\(String(describing: data?.result))")
        #expect(data?.error?.description.contains("206") == true)
        let download = await fixture.session.download(fixture.url(path)).serializingData().response
        #expect(download.error?.urlError?.code == .badServerResponse, "\(download.result)")
    }

    /// Judged on the head: a stream hands none of the part to its reader.
    @Test func aStreamGetsNoneOfThePart() async throws {
        var streamed = Data()
        var failure: (any Error)?
        do {
            for try await chunk in fixture.session.streamRequest(fixture.url("/part")).streamingData() { streamed += chunk }
        } catch {
            failure = error
        }
        #expect(streamed.isEmpty)
        #expect(failure?.asHTTPError?.urlError?.code == .badServerResponse, "\(String(describing: failure))")
    }

    @Test func aRangeRequestGetsItsPart() async throws {
        let data = await response { handler in
            fixture.session.request(fixture.url("/part"), headers: ["Range": "bytes=100-104"])
                .validate().responseData(queue: handlerQueue, completionHandler: handler)
        }
        #expect(data?.value == Self.fragment, "\(String(describing: data?.result))")
    }

    @Test func aPartSpanningTheWholeEntityIsTheResponse() async throws {
        let data = await response { fixture.session.request(fixture.url("/whole")).validate().responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(data?.value == Self.fragment, "\(String(describing: data?.result))")
    }
}
