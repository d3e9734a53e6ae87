/// A deterministic random number generator (SplitMix64, Steele, Lea & Flood 2014), so a
/// fuzz or stress test replays the same inputs on every run and every platform.
///
/// ```swift
/// var random = SeededRandom(seed: 42)
/// let byte = UInt8.random(in: 0...255, using: &random)
/// ```
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; equal seeds give equal sequences.
    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
