import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestSupport
import Testing
@testable import DeferredQueue

/// What only ``URLSessionTransport`` does: timeouts as URLSession applies
/// them. (The shared suites in HTTP/ run on every transport.)
@Suite("URLSessionTransport: timeouts")
struct URLSessionTransportTests {
    @Test func aRequestTimeoutShorterThanTheSessionsIsHonoured() async throws {
        let fixture = try Fixture()
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 600
        let session = Session(configuration: configuration)
        // The guard is far below the session's 600 s: only the request's own
        // 1 s timeout can end this in time.
        let result = await response(within: 120) {
            session.request(fixture.url("/never"), timeout: 1).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error?.isTimeout == true)
    }

    /// corelibs trapped on the first request of a session configured so
    /// (the request's own timeout, unassigned, defers to the configuration's).
    @Test(arguments: [Double.nan, .infinity, 1e20, -1, 0])
    func aConfigurationsTimeoutThatIsNoDurationStillSends(_ seconds: Double) async throws {
        let fixture = try Fixture()
        let configuration = URLSessionTransport.defaultConfiguration
        configuration.timeoutIntervalForRequest = seconds
        let session = Session(configuration: configuration)
        let result = await response(within: 120) {
            session.request(fixture.url("/json")).responseData(queue: handlerQueue, completionHandler: $0)
        }
        #expect(result?.error == nil, "\(seconds): \(String(describing: result?.error))")
    }

    @Test func fractionalTimeoutsAreRoundedUpForURLSession() {
        #expect(URLSessionTransport.idleTimeout(5) == 5)
        #if canImport(FoundationNetworking)
        // swift-corelibs-foundation truncates to whole seconds: 0.2 would time out at once.
        #expect(URLSessionTransport.idleTimeout(0.2) == 1)
        #expect(URLSessionTransport.idleTimeout(1.5) == 2)
        #else
        #expect(URLSessionTransport.idleTimeout(1.5) == 1.5)
        #endif
    }
}
