/// A response serializer of the library's own, which runs no caller code
/// unless given a data preprocessor of the caller's: a request whose
/// every handler uses one may run its handler queue on the caller's queue
/// (``HandlerLane``).
protocol LibrarySerializer {
    /// What serializing runs: ``SerializingWork/callersCode`` with a data
    /// preprocessor of the caller's.
    var work: SerializingWork { get }
}

extension RawBodySerializer: LibrarySerializer {
    var work: SerializingWork { .handsBodyOver }
}

extension DataResponseSerializer: LibrarySerializer {
    var work: SerializingWork { dataPreprocessor is PassthroughPreprocessor ? .handsBodyOver : .callersCode }
}

extension StringResponseSerializer: LibrarySerializer {
    var work: SerializingWork { dataPreprocessor is PassthroughPreprocessor ? .decodesBody : .callersCode }
}

extension JSONResponseSerializer: LibrarySerializer {
    var work: SerializingWork { dataPreprocessor is PassthroughPreprocessor ? .decodesBody : .callersCode }
}

extension DecodableResponseSerializer: LibrarySerializer {
    /// The type's `init(from:)` is the caller's, but it only decodes what
    /// it is handed; the body size limit of ``HandlerLane`` bounds its work.
    var work: SerializingWork { dataPreprocessor is PassthroughPreprocessor ? .decodesBody : .callersCode }
}
