/// The bits of a settled outcome — a `Value` or an `any Error` — in a field
/// whose type does not mention `Value`.
///
/// Why: a generic class's destructor is never specialised, so freeing a
/// `Deferred<Value>` whose outcome sat in a field of type
/// `Result<Value, any Error>?` looked up that type's metadata at run time,
/// every time a deferred was freed.
/// This storage is three plain words; ``Deferred`` records which kind of
/// outcome it holds (its `phase`) and destroys it by hand in `deinit` through
/// `Value.self`, which the class's own metadata carries: no lookup.
///
/// A value that fits in three words, is at most word-aligned and is bitwise
/// takable (everything but a few C++ and `@_rawLayout` types) is stored
/// inline — `Int`, `String`, `Data`, arrays, class references, `Void`; a
/// larger one in one heap cell whose address is the first word. An error is
/// one reference, always inline.
///
/// Not thread-safe by itself: ``Deferred`` writes it once, inside the
/// critical section that settles, and publishes it with a releasing store of
/// its phase.
///
/// Built with `-D DEFERREDQUEUE_REFERENCE`, the outcome sits in a box of its
/// own type instead (see the end of this file).
#if !DEFERREDQUEUE_REFERENCE
@usableFromInline
struct OutcomeStorage {
    @usableFromInline var word0: UInt = 0
    @usableFromInline var word1: UInt = 0
    @usableFromInline var word2: UInt = 0

    @inlinable
    init() {}

    /// Whether a `T` is kept in the words themselves rather than in a heap cell.
    @inlinable
    static func isInline<T>(_: T.Type) -> Bool {
        MemoryLayout<T>.size <= MemoryLayout<OutcomeStorage>.size
            && MemoryLayout<T>.alignment <= MemoryLayout<OutcomeStorage>.alignment
            && _isBitwiseTakable(T.self)
    }

    /// Whether storage holding a `T` must be destroyed: `false` only for a
    /// trivial value kept inline (a trivial value in a heap cell — over 24
    /// bytes, or over-aligned — still owns the cell).
    @inlinable
    static func needsDestroying<T>(_: T.Type) -> Bool {
        !_isPOD(T.self) || !isInline(T.self)
    }

    /// Storage holding `value`; the caller owns it and must ``destroy(_:)``
    /// it as a `T` exactly once.
    ///
    /// The type is spelled out because an `any Error` passed for a bare `T`
    /// would be opened, storing the concrete error instead of the
    /// existential that ``load(_:)`` later reads.
    @inlinable
    init<T>(holding value: T, as _: T.Type) {
        if Self.isInline(T.self) {
            withUnsafeMutableBytes(of: &self) { bytes in
                bytes.baseAddress.unsafelyUnwrapped.withMemoryRebound(to: T.self, capacity: 1) {
                    $0.initialize(to: value)
                }
            }
        } else {
            let cell = UnsafeMutablePointer<T>.allocate(capacity: 1)
            cell.initialize(to: value)
            word0 = UInt(bitPattern: cell)
        }
    }

    /// A copy of the `T` this storage holds.
    @inlinable
    func load<T>(_: T.Type) -> T {
        if Self.isInline(T.self) {
            return withUnsafeBytes(of: self) { $0.load(as: T.self) }
        }
        return UnsafePointer<T>(bitPattern: word0).unsafelyUnwrapped.pointee
    }

    /// Destroys the `T` this storage holds (and frees its heap cell).
    ///
    /// Called from `Deferred`'s unspecialised `deinit`: `T` is the class's
    /// own generic argument, so nothing here looks up metadata.
    @inlinable
    mutating func destroy<T>(_: T.Type) {
        if Self.isInline(T.self) {
            guard !_isPOD(T.self) else { return }
            withUnsafeMutableBytes(of: &self) { bytes in
                bytes.baseAddress.unsafelyUnwrapped.withMemoryRebound(to: T.self, capacity: 1) {
                    _ = $0.deinitialize(count: 1)
                }
            }
        } else {
            let cell = UnsafeMutablePointer<T>(bitPattern: word0).unsafelyUnwrapped
            cell.deinitialize(count: 1)
            cell.deallocate()
        }
    }
}
#else
@usableFromInline
struct OutcomeStorage {
    @usableFromInline var box: AnyObject?

    @inlinable
    init() {}

    @inlinable
    static func isInline<T>(_: T.Type) -> Bool { false }

    @inlinable
    static func needsDestroying<T>(_: T.Type) -> Bool { true }

    @inlinable
    init<T>(holding value: T, as _: T.Type) {
        box = OutcomeBox(value)
    }

    @inlinable
    func load<T>(_: T.Type) -> T {
        guard let box = box as? OutcomeBox<T> else { preconditionFailure("no \(T.self) stored") }
        return box.value
    }

    @inlinable
    mutating func destroy<T>(_: T.Type) {
        box = nil
    }
}

/// An outcome of the reference build's ``OutcomeStorage``.
@usableFromInline
final class OutcomeBox<T> {
    @usableFromInline let value: T

    @inlinable
    init(_ value: T) {
        self.value = value
    }
}
#endif
