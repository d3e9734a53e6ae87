/// A response serializer of the library's own, which runs no caller code
/// unless given a data preprocessor of the caller's: a request whose
/// every handler uses one may run its handler queue on the caller's queue
/// (``HandlerLane``).
protocol LibrarySerializer {
    /// Whether serializing runs the library's code alone (the preprocessor
    /// is the default passthrough).
    var runsOnlyLibraryCode: Bool { get }
}

extension RawBodySerializer: LibrarySerializer {
    var runsOnlyLibraryCode: Bool { true }
}

extension DataResponseSerializer: LibrarySerializer {
    var runsOnlyLibraryCode: Bool { dataPreprocessor is PassthroughPreprocessor }
}

extension StringResponseSerializer: LibrarySerializer {
    var runsOnlyLibraryCode: Bool { dataPreprocessor is PassthroughPreprocessor }
}

extension JSONResponseSerializer: LibrarySerializer {
    var runsOnlyLibraryCode: Bool { dataPreprocessor is PassthroughPreprocessor }
}

extension DecodableResponseSerializer: LibrarySerializer {
    /// The type's `init(from:)` is the caller's, but it only decodes what
    /// it is handed; the body size limit of ``HandlerLane`` bounds its work.
    var runsOnlyLibraryCode: Bool { dataPreprocessor is PassthroughPreprocessor }
}
