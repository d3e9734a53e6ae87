import Foundation
import TestSupport
import Testing

@testable import DeferredQueue

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `URLRequest.duplicatedWithAssignedTimeout()` replaces Foundation's
/// copy-on-write copy when a session prepares an attempt of a request it built
/// (cheaper on corelibs): it must carry over every property that copy
/// carries, and share nothing with the original.
@Suite("URLRequest duplicates")
struct URLRequestDuplicateTests {
    /// A request with every property away from its default.
    private static func unusualRequest() throws -> URLRequest {
        let url = try #require(URL(string: "page?q=1", relativeTo: URL(string: "http://127.0.0.1:9/base/")))
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: 7)
        request.url = url
        request.mainDocumentURL = URL(string: "http://127.0.0.1:9/main")
        request.httpMethod = "PATCH"
        request.allHTTPHeaderFields = ["X-One": "1", "X-Two": "2"]
        request.httpBody = Data("body".utf8)
        request.networkServiceType = .background
        request.allowsCellularAccess = false
        request.httpShouldHandleCookies = false
        return request
    }

    @Test func aDuplicateHasEveryPropertyOfTheOriginal() throws {
        let original = try Self.unusualRequest()
        let copy = original.duplicatedWithAssignedTimeout()
        #expect(copy.url == original.url)
        #expect(copy.url?.relativeString == "page?q=1")
        #expect(copy.mainDocumentURL == original.mainDocumentURL)
        #expect(copy.cachePolicy == .reloadIgnoringLocalCacheData)
        #expect(copy.timeoutInterval == 7)
        #expect(copy.httpMethod == "PATCH")
        #expect(copy.allHTTPHeaderFields == ["X-One": "1", "X-Two": "2"])
        #expect(copy.httpBody == Data("body".utf8))
        #expect(copy.networkServiceType == .background)
        #expect(copy.allowsCellularAccess == false)
        #expect(copy.httpShouldHandleCookies == false)
        #expect(copy == original)
    }

    @Test func aDuplicateOfAPlainGETIsAPlainGET() throws {
        let original = URLRequest(url: try #require(URL(string: "http://127.0.0.1:9/")))
        let copy = original.duplicatedWithAssignedTimeout()
        #expect(copy.httpMethod == "GET" && copy.httpBody == nil && copy.allHTTPHeaderFields == nil)
        #expect(copy.timeoutInterval == original.timeoutInterval && copy.httpShouldHandleCookies)
        #expect(copy == original)
    }

    @Test func aStreamedBodyIsCarriedOver() throws {
        var original = URLRequest(url: try #require(URL(string: "http://127.0.0.1:9/")))
        let stream = InputStream(data: Data("streamed".utf8))
        original.httpBodyStream = stream
        let copy = original.duplicatedWithAssignedTimeout()
        #expect(copy.httpBodyStream === stream && copy.httpBody == nil)
    }

    @Test func changingADuplicateLeavesTheOriginalAlone() throws {
        let original = try Self.unusualRequest()
        var copy = original.duplicatedWithAssignedTimeout()
        copy.setValue("3", forHTTPHeaderField: "X-Three")
        copy.httpMethod = "PUT"
        copy.httpBody = nil
        #expect(original.value(forHTTPHeaderField: "X-Three") == nil)
        #expect(original.httpMethod == "PATCH" && original.httpBody == Data("body".utf8))
    }

    @Test func aPreparedRequestKeepsTheRequestAndAddsTheSessionDefaults() throws {
        let session = Session(transport: URLSessionTransport(configuration: .ephemeral))
        let original = try Self.unusualRequest()
        let prepared = try session.core.prepare(original, timeoutIsAssigned: true).request
        #expect(prepared.httpMethod == "PATCH" && prepared.httpBody == Data("body".utf8))
        #expect(prepared.url == original.url && prepared.timeoutInterval == 7)
        #expect(prepared.value(forHTTPHeaderField: "X-One") == "1")
        #expect(prepared.value(forHTTPHeaderField: "User-Agent")?.contains("DeferredQueue/") == true)
        #expect(original.value(forHTTPHeaderField: "User-Agent") == nil)
        #expect(prepared.httpShouldHandleCookies == false)
    }

    #if canImport(FoundationNetworking)
    /// corelibs lets a request's timeout win over the configuration's only
    /// when it was assigned: a request built without one keeps the
    /// configuration's, as before sessions duplicated requests.
    @Test func aRequestWithoutAnAssignedTimeoutKeepsTheConfigurationsTimeout() async throws {
        let fixture = try Fixture()
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 1
        let session = Session(configuration: configuration)
        let request = URLRequest(url: try #require(URL(string: fixture.url("/never"))))
        // Far below the request's own default of 60 s: only the
        // configuration's 1 s can end this in time.
        let result = await response(within: 120) {
            session.request(request).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.isTimeout == true)
    }
    #endif
}
