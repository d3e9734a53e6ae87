import Foundation

/// Strips the `)]}',` line that some Google APIs put before JSON to defeat
/// cross-site script inclusion (XSSI).
///
/// ```swift
/// let json = try await request(url)
///     .serializingJSON(dataPreprocessor: GoogleXSSIPreprocessor())
///     .value
/// ```
///
/// A body without the prefix passes unchanged.
public struct GoogleXSSIPreprocessor: DataPreprocessor {
    /// The guard line, newline included.
    private static let prefix = Data(")]}',\n".utf8)

    /// Creates the preprocessor.
    public init() {}

    /// Returns `data` without a leading `)]}',` line.
    ///
    /// - Parameter data: The body.
    /// - Returns: The body after the prefix, or `data` when it does not start with it.
    public func preprocess(_ data: Data) -> Data {
        data.starts(with: Self.prefix) ? data.dropFirst(Self.prefix.count) : data
    }
}
