extension Deferred {
    /// Maps every input to a deferred with `make`, never more than
    /// `maxConcurrent` of them pending at once, and fulfils with their values
    /// in input order; rejects with the first rejection.
    ///
    /// A bounded fan-out, like PromiseKit's `when(fulfilled:concurrently:)`:
    ///
    /// ```swift
    /// let pages = Deferred.all(urls, maxConcurrent: 4) { url in
    ///     session.request(url).serializingData()
    /// }
    /// ```
    ///
    /// `make` is called for the first `maxConcurrent` inputs at once, then
    /// for the next input each time a deferred it returned is fulfilled, so
    /// at most `maxConcurrent` are pending at any moment. After the first
    /// rejection, or when the result is cancelled, no further input is
    /// started and the pending deferreds are released: those that nothing
    /// else consumes are cancelled (an HTTP request cancels its task).
    ///
    /// Edge cases: an empty `inputs` fulfils with `[]` without calling
    /// `make`; `maxConcurrent` below 1 counts as 1 (one at a time — never
    /// a result that cannot make progress).
    ///
    /// - Parameters:
    ///   - inputs: The inputs, read once, up front, on the caller's thread.
    ///   - maxConcurrent: The most deferreds from `make` pending at once.
    ///   - make: Starts the work for one input. Called on the caller's thread
    ///     for the first inputs, later on the handler queue of the deferred
    ///     whose fulfilment made room — never recursively, so already
    ///     fulfilled deferreds do not grow the stack however many inputs
    ///     there are. Calls for different inputs may overlap on different
    ///     threads.
    /// - Returns: A deferred fulfilled with every value in input order, or
    ///   rejected with the first rejection.
    public static func all<S: Sequence>(
        _ inputs: S,
        maxConcurrent: Int,
        _ make: @escaping @Sendable (S.Element) -> Deferred<Value>
    ) -> Deferred<[Value]> where S.Element: Sendable {
        let elements = Array(inputs)
        if elements.isEmpty { return Deferred<[Value]>(value: []) }
        return Fanout.start(elements, width: max(1, maxConcurrent), make: make)
    }
}
