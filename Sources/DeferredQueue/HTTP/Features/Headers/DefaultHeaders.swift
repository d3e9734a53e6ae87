import Foundation

/// The header fields a ``Session`` sends unless the request (or the
/// URLSession configuration's `httpAdditionalHeaders`) sets them.
enum DefaultHeaders {
    /// This library's version, as sent in `User-Agent`.
    static let libraryVersion = "0.2.0"

    /// `User-Agent`, `Accept-Language` and, when the transport names the
    /// codings it decodes, `Accept-Encoding`.
    static func make(acceptEncoding: String?) -> [(name: String, value: String)] {
        var headers = [("User-Agent", userAgent), ("Accept-Language", acceptLanguage)]
        if let acceptEncoding { headers.append(("Accept-Encoding", acceptEncoding)) }
        return headers.map { (name: $0.0, value: $0.1) }
    }

    /// `<app>/<version> (<OS> <version>) DeferredQueue/<version>`, e.g.
    /// `HTTPDemo/unknown (Linux 6.1.0) DeferredQueue/0.2.0` — instead of
    /// URLSession's `<exe> (unknown version) curl/…` on Linux.
    static let userAgent: String = {
        let info = Bundle.main.infoDictionary ?? [:]
        let app = info["CFBundleExecutable"] as? String ?? ProcessInfo.processInfo.processName
        let appVersion = info["CFBundleShortVersionString"] as? String ?? "unknown"
        let os = ProcessInfo.processInfo.operatingSystemVersion
        #if os(Linux)
        let osName = "Linux"
        #elseif os(macOS)
        let osName = "macOS"
        #elseif os(iOS)
        let osName = "iOS"
        #elseif os(Windows)
        let osName = "Windows"
        #else
        let osName = "Unknown"
        #endif
        let osVersion = "\(os.majorVersion).\(os.minorVersion).\(os.patchVersion)"
        return "\(app)/\(appVersion) (\(osName) \(osVersion)) DeferredQueue/\(libraryVersion)"
    }()

    /// The user's preferred languages, most preferred first, with quality
    /// values: `en-US, en;q=0.9`.
    static let acceptLanguage: String = {
        let languages = Locale.preferredLanguages.prefix(6)
        guard !languages.isEmpty else { return "en;q=1.0" }
        return languages.enumerated().map { index, language in
            index == 0 ? language : "\(language);q=\(String(format: "%.1f", 1.0 - Double(index) * 0.1))"
        }.joined(separator: ", ")
    }()
}
