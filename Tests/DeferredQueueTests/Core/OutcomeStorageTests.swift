import DeferredQueueTesting
import TestSupport
import Testing
@testable import DeferredQueue

/// A deferred keeps its outcome as raw words it destroys by hand (see
/// `OutcomeStorage`): every kind of value must come back intact, and be
/// released exactly when the deferred is freed.
@Suite("Deferred: outcomes of every size and kind round-trip and are released")
struct OutcomeStorageTests {
    /// Five words: too large for the inline words, kept in a heap cell.
    struct Large: Equatable, Sendable {
        var a = 1, b = 2, c = 3, d = 4
        var name = "large"
    }

    /// Sixteen-byte alignment: kept in a heap cell even though it is small.
    struct OverAligned: Equatable, Sendable {
        var pair = SIMD2<Double>(1.5, -2.5)
    }

    /// An object whose release the tests can observe.
    final class Token: Sendable {}

    /// A value holding a reference, five words: kept in a heap cell.
    struct Holding: Sendable {
        let token: Token
        var padding: (Int, Int, Int, Int) = (0, 0, 0, 0)
    }

    /// An error holding a reference.
    struct TokenError: Error {
        let token: Token
    }

    /// A trivial value in a heap cell still owns the cell: skipping its
    /// destruction because the value is trivial leaked the cell of every
    /// such deferred (LeakSanitizer caught it in CI).
    /// Which storage this build has: CI runs the core suites on both.
    @Test func theBuildUsesTheStorageItWasAskedFor() {
        #if DEFERREDQUEUE_REFERENCE
        #expect(!OutcomeStorage.isInline(Int.self), "the reference build boxes every outcome")
        #else
        #expect(OutcomeStorage.isInline(Int.self), "the fast build keeps an Int in the words")
        #endif
    }

    #if !DEFERREDQUEUE_REFERENCE
    // The fast storage's own rule; the reference build boxes every outcome.
    @Test func onlyTrivialValuesKeptInlineSkipDestruction() {
        struct Wide: Sendable { var a = 1, b = 2, c = 3, d = 4 }
        #expect(OutcomeStorage.needsDestroying(Wide.self), "trivial, but 32 bytes: a heap cell")
        #expect(OutcomeStorage.needsDestroying(OverAligned.self), "trivial, but over-aligned: a heap cell")
        #expect(OutcomeStorage.needsDestroying(String.self), "inline, but holds a reference")
        #expect(!OutcomeStorage.needsDestroying(Int.self))
        #expect(!OutcomeStorage.needsDestroying(Void.self))
    }
    #endif

    @Test func everySizeOfValueRoundTripsThroughFulfilThenAndAwait() async throws {
        #expect(try await Deferred(value: Large()).then { $0 }.value == Large())
        #expect(try await Deferred(value: OverAligned()).then { $0 }.value == OverAligned())
        #expect(try await Deferred(value: "a string").then { $0 + "!" }.value == "a string!")
        #expect(try await Deferred(value: [1, 2, 3]).then { $0 + [4] }.value == [1, 2, 3, 4])
        try await Deferred(value: ()).then { _ in () }.value

        let (pending, resolver) = Deferred<Large>.pending()
        let copy = pending.then { $0 }
        resolver.fulfill(Large(a: 9))
        #expect(try await copy.value == Large(a: 9))
        #expect(try await pending.value == Large(a: 9))
    }

    @Test func anErrorValueIsAValueNotARejection() async throws {
        // An `any Error` fulfilment must be stored as the existential, not
        // opened to the concrete error inside it.
        let (deferred, resolver) = Deferred<any Error>.pending()
        resolver.fulfill(TestError(7))
        let value = try await deferred.then { $0 }.value
        #expect(value as? TestError == TestError(7))
        #expect(try await Deferred<any Error>(value: TestError(8)).value as? TestError == TestError(8))
    }

    @Test func rejectionsKeepTheirError() async {
        #expect(await settled(Deferred<Large>(error: TestError(1))) == .error(TestError(1)))
        let (deferred, resolver) = Deferred<Large>.pending()
        let passed = deferred.then { $0 }
        resolver.reject(TestError(2))
        #expect(await settled(passed) == .error(TestError(2)))
        #expect(await settled(deferred) == .error(TestError(2)))
    }

    @Test func aFreedDeferredReleasesItsValueOrErrorOnce() async {
        let tokens = WeakList<Token>()
        let ran = Latch(count: 4)
        do {
            let inline = Token(), boxed = Token(), rejected = Token(), cancelled = Token()
            for token in [inline, boxed, rejected, cancelled] { tokens.add(token) }
            Deferred(value: inline).then { _ in ran.arrive() }
            Deferred(value: Holding(token: boxed)).then { _ in ran.arrive() }
            Deferred<Int>(error: TokenError(token: rejected)).catch { _ in ran.arrive() }
            let (pending, resolver) = Deferred<Token>.pending()
            pending.finally { ran.arrive() }
            pending.cancel()
            resolver.fulfill(cancelled) // ignored: never stored
        }
        #expect(await ran.wait())
        #expect(await eventually { tokens.aliveCount == 0 })
    }

    @Test func aSettledValueOutlivesEverythingButItsDeferred() async throws {
        let tokens = WeakList<Token>()
        let deferred: Deferred<Holding>
        do {
            let token = Token()
            tokens.add(token)
            deferred = Deferred(value: Holding(token: token))
        }
        // Read many times: each read is a copy, none consumes the stored value.
        for _ in 0..<3 { _ = try await deferred.then { $0.token }.value }
        #expect(tokens.aliveCount == 1)
        #expect(try await deferred.value.token === deferred.value.token)
    }
}
