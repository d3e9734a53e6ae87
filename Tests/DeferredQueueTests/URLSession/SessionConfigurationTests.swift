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

@Suite("Session: the default configuration")
struct DefaultConfigurationTests {
    @Test func theDefaultConfigurationCachesNoResponses() {
        #expect(URLSessionTransport.defaultConfiguration.urlCache == nil)
        #expect(URLSessionTransport.defaultConfiguration !== URLSessionTransport.defaultConfiguration, "a fresh one each time: it is mutable")
        let session = Session()
        #expect((session.transport as? URLSessionTransport)?.urlSession.configuration.urlCache == nil)
    }

    #if canImport(FoundationNetworking)
    @Test func corelibsSharedCacheLivesWhereTheDefaultConfigurationLooks() {
        // The directory `URLCache.shared` creates (checked by HTTPDemoTests
        // in a process with its own HOME) is the one looked for.
        let directory = URLSessionTransport.sharedCacheDirectory.path
        #expect(directory.hasSuffix("/org.swift.foundation.URLCache/\(ProcessInfo.processInfo.processName)"))
    }
    #endif
}
