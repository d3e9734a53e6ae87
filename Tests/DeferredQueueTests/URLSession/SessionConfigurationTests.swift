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
    @Test func theSharedCacheDirectoryIsWhereCorelibsPutsIt() {
        // A URLCache without a path creates the directory `URLCache.shared`
        // uses (this test process makes it anyway); HTTPDemoTests checks, in
        // a process with a HOME of its own, that it is then never created.
        _ = URLCache(memoryCapacity: 0, diskCapacity: 0, diskPath: nil)
        let directory = URLSessionTransport.sharedCacheDirectory.path
        #expect(directory.hasSuffix("/org.swift.foundation.URLCache/\(ProcessInfo.processInfo.processName)"))
        #expect(FileManager.default.fileExists(atPath: directory))
    }
    #endif
}
