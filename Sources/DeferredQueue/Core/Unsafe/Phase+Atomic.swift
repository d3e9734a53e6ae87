import Synchronization

/// ``Phase`` in an `Atomic`: its raw `UInt8`.
///
/// Why not the standard library's conformance for raw-representable types:
/// it decodes with `Phase(rawValue:)!`, a range check and a trap on every
/// load of every deferred's phase. Only this type stores into the atomic,
/// so every stored byte is a case. Built with `-D DEFERREDQUEUE_REFERENCE`,
/// the check stays.
extension Phase: AtomicRepresentable {
    @usableFromInline typealias AtomicRepresentation = UInt8.AtomicRepresentation

    @inlinable
    static func encodeAtomicRepresentation(_ value: consuming Phase) -> AtomicRepresentation {
        UInt8.encodeAtomicRepresentation(value.rawValue)
    }

    @inlinable
    static func decodeAtomicRepresentation(_ storage: consuming AtomicRepresentation) -> Phase {
        let raw = UInt8.decodeAtomicRepresentation(storage)
        #if DEFERREDQUEUE_REFERENCE
        guard let phase = Phase(rawValue: raw) else { preconditionFailure("no phase \(raw)") }
        return phase
        #else
        // The cases are declared in raw-value order, so a case's tag is its raw value.
        return unsafeBitCast(raw, to: Phase.self)
        #endif
    }
}
