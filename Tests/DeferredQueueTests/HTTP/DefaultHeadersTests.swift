import DeferredQueueTesting
import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import DeferredQueue

/// `Accept-Language` from the POSIX locale environment, as on Linux, where
/// swift-corelibs-foundation's `Locale.preferredLanguages` is always `["en-001"]`.
@Suite("Default headers: Accept-Language from the locale environment")
struct DefaultHeadersTests {
    @Test(arguments: [
        ([:], "en"),
        (["LANG": "C"], "en"),
        (["LANG": "POSIX"], "en"),
        (["LANG": "C.UTF-8"], "en"),
        (["LANG": ""], "en"),
        (["LANG": "de_DE.UTF-8"], "de-DE, de;q=0.9"),
        (["LANG": "ja_JP.eucJP@euro"], "ja-JP, ja;q=0.9"),
        (["LANG": "fr"], "fr"),
        (["LANG": "es_419.UTF-8"], "es-419, es;q=0.9"),
    ] as [([String: String], String)])
    func theLocaleNameBecomesALanguageTag(_ environment: [String: String], _ expected: String) {
        #expect(DefaultHeaders.acceptLanguage(environment: environment) == expected)
    }

    @Test func lcAllWinsOverLCMessagesWhichWinsOverLang() {
        let all = ["LC_ALL": "de_AT.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "ja_JP.UTF-8"]
        #expect(DefaultHeaders.acceptLanguage(environment: all) == "de-AT, de;q=0.9")
        let messages = ["LC_ALL": "", "LC_MESSAGES": "fr_FR.UTF-8", "LANG": "ja_JP.UTF-8"]
        #expect(DefaultHeaders.acceptLanguage(environment: messages) == "fr-FR, fr;q=0.9")
    }

    @Test func gnuLanguageListsThePreferencesWithFallingQuality() {
        let environment = ["LANG": "de_DE.UTF-8", "LANGUAGE": "de_DE:en_GB:fr"]
        #expect(DefaultHeaders.acceptLanguage(environment: environment) == "de-DE, de;q=0.9, en-GB;q=0.8, en;q=0.7, fr;q=0.6")
    }

    @Test func gnuLanguageIsIgnoredInTheCLocale() {
        #expect(DefaultHeaders.acceptLanguage(environment: ["LANG": "C", "LANGUAGE": "de"]) == "en")
    }

    @Test func atMostSixLanguagesAreSent() {
        let environment = ["LANG": "en_US.UTF-8", "LANGUAGE": "de_DE:fr_FR:it_IT:es_ES"]
        #expect(DefaultHeaders.acceptLanguage(environment: environment) == "de-DE, de;q=0.9, fr-FR;q=0.8, fr;q=0.7, it-IT;q=0.6, it;q=0.5")
    }

    @Test func theSentValueIsAQualityListOfLanguageTags() {
        let parts = DefaultHeaders.acceptLanguage.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(!parts.isEmpty)
        #if !canImport(Darwin)
        #expect(!DefaultHeaders.acceptLanguage.contains("en-001"), "not corelibs' answer for every locale")
        #endif
        for part in parts {
            let tag = part.split(separator: ";").first.map(String.init) ?? ""
            #expect(tag.range(of: #"^[a-z]{2,3}(-[A-Za-z0-9]+)*$"#, options: .regularExpression) != nil, "\(part)")
        }
    }
}

/// The session checks its default fields once, when it is made, rather than
/// on every attempt: one the RFC 9110 syntax refuses is left out instead of
/// being sent (or failing every request).
@Suite("Default headers: checked once, a malformed one left out")
struct DefaultHeaderSyntaxTests {
    /// A transport that names a malformed `acceptEncoding` and otherwise answers as `MockTransport`.
    final class MalformedEncodingTransport: HTTPTransport {
        let inner = MockTransport(replying: .status(200))
        var callbackQueue: DispatchQueue { inner.callbackQueue }
        let acceptEncoding: String? = "gzip\r\nX-Injected: 1"

        func startAttempt(_ attempt: HTTPTransportAttempt, events: any HTTPTransportEvents) -> any HTTPTransportTask {
            inner.startAttempt(attempt, events: events)
        }

        func shutdown() { inner.shutdown() }
    }

    @Test func aMalformedDefaultFieldIsLeftOutAndTheRequestStillGoes() async throws {
        let transport = MalformedEncodingTransport()
        let session = Session(transport: transport)
        let status = try await session.request("http://defaults.test/").serializingResponse().value.response?.statusCode
        #expect(status == 200)
        let sent = try #require(transport.inner.requests.first)
        #expect(sent.value(forHTTPHeaderField: "Accept-Encoding") == nil)
        #expect(sent.value(forHTTPHeaderField: "X-Injected") == nil)
        #expect(sent.value(forHTTPHeaderField: "User-Agent")?.contains("DeferredQueue/") == true, "the valid defaults stay")
    }
}
