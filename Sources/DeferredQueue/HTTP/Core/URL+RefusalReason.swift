import Foundation

extension URL {
    /// Why a session refuses this `http(s)` URL with a host
    /// (``sendableForm``), in words for ``HTTPError/invalidURL(_:)``'s
    /// description; `nil` when it has no such scheme or host, or is sent.
    var refusalReason: String? {
        guard let (_, host) = httpForm else { return nil }
        if isEncodedHost(host) {
            return "its host \"\(host)\" is percent-encoded, and the transports would each decode it "
                + "differently (a %00 ends the name early for the resolver); write the host name itself"
        }
        if !hasSendablePort {
            return "its port is not a number from 0 to 65535"
        }
        if Self.isAmbiguousIPv4Host(host) {
            return "its host \"\(host)\" ends in a number but is not an IPv4 address in dotted decimal "
                + "(an IPv6 address embedding an IPv4 one is refused too); write the address as four "
                + "decimal numbers, e.g. \"127.0.0.1\""
        }
        if Self.isMisreadAddress(host) {
            if host.utf8.contains(UInt8(ascii: ":")) {
                if let canonical = Self.canonicalIPv6(String(host.prefix { $0 != "%" })) {
                    return "its host \"\(host)\" has a zone, which only a link-local address (fe80::/10) may have; "
                        + "write \"[\(canonical)]\""
                }
                return "its host \"\(host)\" is the unspecified address or an IPv6 address not written in its "
                    + "canonical form (RFC 5952), which a check of the host as text would misread; write it as "
                    + "inet_ntop does (e.g. \"[::1]\" for this machine)"
            }
            return "its host \"\(host)\" is in 0.0.0.0/8, which names no server (Linux connects to this machine "
                + "instead); use \"127.0.0.1\" for this machine"
        }
        return nil
    }
}
