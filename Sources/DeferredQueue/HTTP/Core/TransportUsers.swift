import LockSupport
import Synchronization

/// The sessions that use each transport object: a transport given to
/// several sessions shuts down when the last of them goes, not under the
/// others' requests. (A transport that is a value is each session's own.)
enum TransportUsers {
    private struct Users: Sendable {
        /// Checked on every lookup: an identifier is reused once its object is gone.
        weak var transport: (any HTTPTransport & AnyObject)?
        var sessions: Int
    }

    /// The table, and the object whose address names its lock to ThreadSanitizer.
    private final class Table: Sendable {
        let users = Mutex<[ObjectIdentifier: Users]>([:])
    }

    private static let table = Table()

    /// A session now uses `transport`.
    static func add(_ transport: any HTTPTransport) {
        guard let object = transport as? any HTTPTransport & AnyObject else { return }
        let id = ObjectIdentifier(object)
        table.users.withLock(owner: table) { users in
            if let known = users[id], known.transport === object {
                users[id]?.sessions += 1
            } else {
                // Transports gone since are dropped here, so the table stays as large as those alive.
                users = users.filter { $0.value.transport != nil }
                users[id] = Users(transport: object, sessions: 1)
            }
        }
    }

    /// A session that used `transport` went: whether it was the last,
    /// which then shuts the transport down.
    static func remove(_ transport: any HTTPTransport) -> Bool {
        guard let object = transport as? any HTTPTransport & AnyObject else { return true }
        let id = ObjectIdentifier(object)
        return table.users.withLock(owner: table) { users in
            guard let known = users[id], known.transport === object else { return true }
            guard known.sessions > 1 else {
                users[id] = nil
                return true
            }
            users[id]?.sessions -= 1
            return false
        }
    }
}
