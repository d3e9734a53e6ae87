/// A deferred's cancel hooks, held by hand.
///
/// Why: nearly every deferred has none, and an optional array field is
/// released when the deferred is freed even when it is `nil` (a call per
/// freed deferred). An `Unmanaged` reference is a trivial type: freeing a
/// deferred destroys nothing here; the owner releases it explicitly, once
/// (``take()`` or ``release()``).
///
/// Built with `-D DEFERREDQUEUE_REFERENCE`, a plain optional reference.
@usableFromInline
struct HeldCancelHooks {
    #if DEFERREDQUEUE_REFERENCE
    @usableFromInline var held: CancelHooks?
    #else
    @usableFromInline var held: Optional<Unmanaged<CancelHooks>>
    #endif

    @inlinable
    init() {
        held = nil
    }

    /// Hands the hooks over (and lets go of them); `nil` when there are none.
    @inlinable
    mutating func take() -> [@Sendable () -> Void]? {
        guard let held else { return nil }
        self.held = nil
        #if DEFERREDQUEUE_REFERENCE
        return held.hooks
        #else
        return held.takeRetainedValue().hooks
        #endif
    }

    /// Adds a hook.
    @usableFromInline
    mutating func append(_ hook: @escaping @Sendable () -> Void) {
        #if DEFERREDQUEUE_REFERENCE
        if let held { held.hooks.append(hook) } else { held = CancelHooks(hook) }
        #else
        if let held {
            // Borrowed: `takeUnretainedValue()` would retain and release it.
            held._withUnsafeGuaranteedRef { $0.hooks.append(hook) }
        } else {
            held = Unmanaged.passRetained(CancelHooks(hook))
        }
        #endif
    }

    /// Lets go of hooks nobody took (the deferred's `deinit`).
    mutating func release() {
        #if !DEFERREDQUEUE_REFERENCE
        held?.release()
        #endif
        held = nil
    }
}
