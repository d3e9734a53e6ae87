/// Weak references collected from many threads.
public final class WeakList<Object: AnyObject & Sendable>: Sendable {
    private final class Ref: Sendable {
        weak let object: Object?
        init(_ object: Object) { self.object = object }
    }

    private let refs = Recorder<Ref>()

    public init() {}

    public func add(_ object: Object) { refs.append(Ref(object)) }
    public var aliveCount: Int { refs.events.filter { $0.object != nil }.count }
}
