import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A file name taken from a response, reduced to one safe path component.
///
/// The server (or whoever it redirects to) chooses the response's URL and its
/// `Content-Disposition`, so a name read from them may be `../.bashrc`, `..`,
/// `/etc/passwd` or `evil\0.txt`, in any encoding. Whatever comes in, the
/// result is one component that stays in the directory it is appended to:
///
/// - decoded once (a URL's percent-encoding; `filename*`'s charset); bytes that
///   are not UTF-8 (overlong forms included) become `_`, never `.` or `/`;
/// - `/`, `\`, `:`, NUL and every other control or invisible formatting
///   character (bidirectional overrides that disguise an extension), and the
///   look-alikes of `/` and `\`, become `_`;
/// - leading and trailing dots and spaces go (no `.`, `..`, dots only, or
///   hidden file);
/// - at most ``maximumLength`` bytes of UTF-8, keeping a short extension;
/// - nothing left: ``fallback``.
enum DownloadFileName {
    /// The name used when the response offers no usable one.
    static let fallback = "download"
    /// The longest name kept, in bytes of UTF-8 (the usual `NAME_MAX`).
    static let maximumLength = 255

    /// The name a response suggests, made safe: `Content-Disposition`'s
    /// `filename*`, then its `filename`, then the URL's last path segment;
    /// the first that is still a name once made safe, else ``fallback``.
    static func suggested(by response: HTTPURLResponse) -> String {
        var candidates: [String] = []
        if let disposition = response.value(forHTTPHeaderField: "Content-Disposition") {
            candidates += ContentDisposition.fileNames(in: disposition)
        }
        if let url = response.url, let segment = lastPathSegment(of: url) {
            candidates.append(String(decoding: PercentDecoding.bytes(of: segment), as: UTF8.self))
        }
        return candidates.lazy.compactMap(sanitized).first ?? fallback
    }

    /// The URL's last path segment, still percent-encoded: decoding first
    /// would turn `..%2F.bashrc` into two segments.
    static func lastPathSegment(of url: URL) -> Substring? {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? url.path
        return path.split(separator: "/").last
    }

    /// `name` as one safe path component, or `nil` when nothing of it is left.
    static func sanitized(_ name: String) -> String? {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            scalars.append(isForbidden(scalar) ? "_" : scalar)
        }
        let edges = CharacterSet(charactersIn: ".").union(.whitespaces)
        let bounded = truncated(String(scalars).trimmingCharacters(in: edges)).trimmingCharacters(in: edges)
        // Belt and braces: what the rules above guarantee.
        guard !bounded.isEmpty, !bounded.contains("/"), !bounded.utf8.contains(0), bounded != ".", bounded != ".." else {
            return nil
        }
        return bounded
    }

    private static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "/", "\\", ":",
             "\u{2044}", "\u{2215}", "\u{29F8}", "\u{FF0F}",  // fraction, division, big and fullwidth solidus
             "\u{2216}", "\u{29F9}", "\u{FF3C}",              // set minus, big and fullwidth reverse solidus
             "\u{FFFD}":                                       // what bytes that are not UTF-8 decode to
            return true
        default:
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                return true
            default:
                return false
            }
        }
    }

    /// At most ``maximumLength`` bytes, cut between characters; an extension
    /// of up to 16 bytes survives the cut.
    private static func truncated(_ name: String) -> String {
        guard name.utf8.count > maximumLength else { return name }
        var stem = Substring(name)
        var suffix = Substring()
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.utf8[dot...].count <= 16 {
            stem = name[..<dot]
            suffix = name[dot...]
        }
        let budget = maximumLength - suffix.utf8.count
        var kept = ""
        for character in stem {
            if kept.utf8.count + character.utf8.count > budget { break }
            kept.append(character)
        }
        return kept + suffix
    }
}
