/// A response serializer of the library's own, which runs no caller code
/// unless given a data preprocessor of the caller's: a request whose
/// every handler uses one may run its handler queue on the caller's queue
/// (``HandlerLane``).
protocol LibrarySerializer {
    /// Whether serializing runs the library's code alone (the preprocessor
    /// is the default passthrough).
    var runsOnlyLibraryCode: Bool { get }
    /// Whether its work grows with the body: it decodes the body rather
    /// than handing it over as it is.
    var workGrowsWithBody: Bool { get }
}

extension LibrarySerializer {
    var workGrowsWithBody: Bool { true }
}

extension RawBodySerializer: LibrarySerializer {
    var runsOnlyLibraryCode: Bool { true }
    var workGrowsWithBody: Bool { false }
}

extension DataResponseSerializer: LibrarySerializer {
    var runsOnlyLibraryCode: Bool { dataPreprocessor is PassthroughPreprocessor }
    /// Only with the passthrough preprocessor (``runsOnlyLibraryCode``), which it needs to follow at all.
    var workGrowsWithBody: Bool { false }
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
