import Dispatch

/// Where every deferred's queue runs its handlers unless told otherwise:
/// GCD's default-QoS pool, the one sized to the cores. A serial queue made
/// without a target would go to the *overcommit* pool, which starts a thread
/// for every queue with work while the others are busy: a burst of settled
/// deferreds then takes up to its 255 threads, and every other serial queue
/// in the process waits behind the backlog. Made once: on Linux each
/// `DispatchQueue.global()` call allocates a new wrapper.
@usableFromInline let deferredQueueDefaultTarget = DispatchQueue.global()
