import Dispatch

extension DispatchQueue {
    /// A serial queue for the server's own work (accepting, reading, replying),
    /// on GCD's utility root queue rather than the default one.
    ///
    /// Serial queues share their root queue's first-in, first-out list of
    /// woken queues. A test process that wakes a hundred thousand deferreds'
    /// queues at once (the stress suites) would otherwise put every server
    /// behind all of them, and under the thread sanitizer that wait outlasted
    /// the 120 seconds a request from the demo's child process allows. On a
    /// root of its own the server is served as soon as a thread is free.
    ///
    /// Utility, not a higher class: on Linux, libdispatch sets a worker's nice
    /// value by class (user-initiated and user-interactive: −2; utility: 2),
    /// and a server streaming or digesting hundreds of MiB at −2 took the CPU
    /// from the clients reading it in the same process.
    static func serverQueue(label: String) -> DispatchQueue {
        DispatchQueue(label: label, qos: .utility)
    }
}
