import Dispatch

extension DispatchQueue {
    /// A serial queue for the server's own work (accepting, reading, replying),
    /// on GCD's user-interactive root queue rather than the default one.
    ///
    /// Serial queues share their root queue's first-in, first-out list of
    /// woken queues. A test process that wakes a hundred thousand deferreds'
    /// queues at once (the stress suites) would otherwise put every server
    /// behind all of them, and under the thread sanitizer that wait outlasted
    /// the 120 seconds a request from the demo's child process allows. On a
    /// root of its own the server is served as soon as a thread is free; its
    /// blocks are short (at most 16 reads of 64 KiB, or one reply step), so it
    /// takes little from the suites it overtakes.
    static func serverQueue(label: String) -> DispatchQueue {
        DispatchQueue(label: label, qos: .userInteractive)
    }
}
