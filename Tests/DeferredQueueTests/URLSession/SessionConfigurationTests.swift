import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

@Suite("Session: configuration")
struct SessionConfigurationTests {
    @Test func theSessionUsesACopyOfTheConfigurationWithoutURLCacheOnLinux() {
        let configuration = URLSessionConfiguration.default
        configuration.httpAdditionalHeaders = ["X-Probe": "1"]
        let cache = configuration.urlCache
        let session = Session(configuration: configuration)
        #expect((session.transport as? URLSessionTransport)?.urlSession.configuration.httpAdditionalHeaders?["X-Probe"] as? String == "1")
        #expect(configuration.urlCache === cache, "the caller's configuration is not changed")
        #if canImport(FoundationNetworking)
        #expect((session.transport as? URLSessionTransport)?.urlSession.configuration.urlCache == nil)
        #endif
    }
}
