/// Weak references collected from many threads.
final class WeakList<Object: AnyObject & Sendable>: Sendable {
    private final class Ref: Sendable {
        weak let object: Object?
        init(_ object: Object) { self.object = object }
    }

    private let refs = Recorder<Ref>()

    func add(_ object: Object) { refs.append(Ref(object)) }
    var aliveCount: Int { refs.events.filter { $0.object != nil }.count }
}
