/// What a response serializer runs on a request's handler queue, which
/// decides where that queue may run (``HandlerLane``).
enum SerializingWork: Sendable {
    /// Code of the caller's (a serializer or data preprocessor of theirs):
    /// the handler queue keeps the global pool.
    case callersCode
    /// The library's code, which decodes the body: its work grows with the
    /// body, so it follows the handler's queue only for a small one.
    case decodesBody
    /// The library's code, which hands the body over as it is: the same work
    /// at any size.
    case handsBodyOver
}
