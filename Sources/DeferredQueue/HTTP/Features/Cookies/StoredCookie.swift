import Foundation

/// A cookie the session accepted (RFC 6265bis §5.7): what it is, where it
/// goes, and the two clocks the store orders and evicts by.
struct StoredCookie: Sendable, Equatable {
    /// What makes two cookies the same one: a new cookie with the same
    /// identity replaces the old.
    struct Identity: Hashable, Sendable {
        var name: String
        var domain: String
        var hostOnly: Bool
        var path: String
    }

    var name: String
    var value: String
    /// Lower-case, without a leading dot.
    var domain: String
    /// Sent to `domain` exactly, not to its subdomains (no `Domain` attribute).
    var hostOnly: Bool
    var path: String
    var secure: Bool
    var httpOnly: Bool
    /// `nil` for a session cookie.
    var expires: Date?
    /// The store's creation counter: earlier cookies are sent first
    /// among those with paths of the same length. A replaced cookie keeps it.
    var creation: UInt64 = 0
    /// The store's access counter, renewed when the cookie is set or sent:
    /// the least recently used cookie is evicted first.
    var lastAccess: UInt64 = 0

    var identity: Identity { Identity(name: name, domain: domain, hostOnly: hostOnly, path: path) }

    func isExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// `name=value`, or the value alone for a nameless cookie.
    var pair: String { name.isEmpty ? value : name + "=" + value }
}
