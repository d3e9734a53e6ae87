/// The handle of an attempt a transport refused before starting it: it has
/// completed (or is about to, on the callback queue), so there is nothing to cancel.
struct RefusedAttemptTask: HTTPTransportTask {
    func cancel() {}
}
