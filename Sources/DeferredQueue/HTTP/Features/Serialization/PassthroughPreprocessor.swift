import Foundation

/// The default ``DataPreprocessor``: hands the body on unchanged.
public struct PassthroughPreprocessor: DataPreprocessor {
    /// Creates the preprocessor.
    public init() {}

    /// Returns `data` unchanged.
    ///
    /// - Parameter data: The body.
    /// - Returns: `data`.
    public func preprocess(_ data: Data) -> Data {
        data
    }
}
