/// The bits of a `then` step — a function value of whatever signature — in
/// two words whose type mentions neither the step's argument nor its result.
///
/// Why not a field of an erased function type (`(Any) throws -> Any`) set
/// with `unsafeBitCast`: the cast copies the value, so storing the step
/// retained its context and released the caller's later, and calling it
/// again retained and released it: two retain/release pairs per handler.
/// Here the step is moved in and moved out as its own
/// type, through the memory.
///
/// A function value is a code pointer and a context, whatever its
/// signature: the first word is never zero for a stored step, so zero
/// means empty. ``Deferred`` stores a step before publishing the deferred
/// and takes it in one handler block; nothing else touches it.
///
/// Built with `-D DEFERREDQUEUE_REFERENCE`, the step is an `Any` cast back
/// (see the end of this file).
#if !DEFERREDQUEUE_REFERENCE
@usableFromInline
struct StepStorage {
    @usableFromInline var word0: UInt = 0
    @usableFromInline var word1: UInt = 0

    /// Empty storage.
    @inlinable
    init() {}

    /// Storage owning `step`, which must be a function type.
    @inlinable
    init<Step>(holding step: __owned Step) {
        withUnsafeMutableBytes(of: &self) { bytes in
            _ = bytes.baseAddress.unsafelyUnwrapped.initializeMemory(as: Step.self, to: step)
        }
    }

    /// Whether no step is held.
    @inlinable
    var isEmpty: Bool { word0 == 0 }

    /// Moves the held step out as a `Step` — the type it was stored as — and
    /// leaves the storage empty.
    @inlinable
    mutating func take<Step>(_: Step.Type) -> Step {
        let step = withUnsafeMutableBytes(of: &self) { bytes in
            bytes.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Step.self).move()
        }
        self = StepStorage()
        return step
    }

    /// Releases a step that was never taken. Any function type will do to
    /// destroy one: destroying a function value releases its context.
    @inlinable
    mutating func destroy() {
        guard !isEmpty else { return }
        _ = take((() -> Void).self)
    }
}
#else
@usableFromInline
struct StepStorage {
    @usableFromInline var step: Any?

    @inlinable
    init() {}

    @inlinable
    init<Step>(holding step: __owned Step) {
        self.step = step
    }

    @inlinable
    var isEmpty: Bool { step == nil }

    @inlinable
    mutating func take<Step>(_: Step.Type) -> Step {
        guard let held = step as? Step else { preconditionFailure("no \(Step.self) stored") }
        step = nil
        return held
    }

    @inlinable
    mutating func destroy() {
        step = nil
    }
}
#endif
