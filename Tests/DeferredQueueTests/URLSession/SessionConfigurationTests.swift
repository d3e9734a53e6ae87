import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
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

    /// The transport's events, and the adapters and redirectors that run on
    /// them, run on a serial queue that targets the session's `rootQueue`.
    @Test func transportEventsRunOnTheRootQueue() async throws {
        let fixture = try Fixture()
        let root = DispatchQueue(label: "tests.root")
        let key = DispatchSpecificKey<Bool>()
        root.setSpecific(key: key, value: true)
        let session = Session(rootQueue: root)
        let onRoot = Recorder<Bool>()
        let adapter = Adapter { request, _, completion in
            onRoot.append(DispatchQueue.getSpecific(key: key) == true)
            completion(.success(request))
        }
        let reply = await response { session.request(fixture.url("/json"), interceptor: adapter).responseData(queue: handlerQueue, completionHandler: $0) }
        #expect(reply?.response?.statusCode == 200)
        #expect(onRoot.events == [true])
        #expect(DispatchQueue.getSpecific(key: key) == nil, "the test itself is not on the root queue")
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
