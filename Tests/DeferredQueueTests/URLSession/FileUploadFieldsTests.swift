import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import TestSupport
import Testing
@testable import DeferredQueue

/// On Linux a file goes to libcurl as a stream with its length announced,
/// and a blank `Content-Type` keeps corelibs from inventing a form's for a
/// streamed `POST`: a `Content-Type` the caller or the configuration sets
/// is still the one sent, and none is sent when nobody set one.
@Suite("URLSession: the fields of a file upload")
struct FileUploadFieldsTests {
    private func contentType(configured: String?, own: String?) async throws -> String {
        let server = try LoopbackServer { request in .text(request.header("Content-Type") ?? "(none)") }
        defer { server.shutdown() }
        let file = try patternFile(length: 1_000)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = URLSessionTransport.defaultConfiguration
        if let configured { configuration.httpAdditionalHeaders = ["Content-Type": configured] }
        let session = Session(configuration: configuration)
        let headers: HTTPHeaders = own.map { ["Content-Type": $0] } ?? [:]
        let result = await response { session.upload(file, to: server.url("/"), method: .post, headers: headers).responseString(queue: handlerQueue, completionHandler: $0) }
        return try #require(result?.value, "\(String(describing: result?.error))")
    }

    @Test func theConfigurationsContentTypeIsSent() async throws {
        #expect(try await contentType(configured: "text/x-configured", own: nil) == "text/x-configured")
    }

    @Test func theRequestsContentTypeIsSent() async throws {
        #expect(try await contentType(configured: "text/x-configured", own: "text/x-own") == "text/x-own")
    }

    @Test func noContentTypeIsSentWhenNoneIsSet() async throws {
        #expect(try await contentType(configured: nil, own: nil) == "(none)")
    }
}
