import Foundation

/// The header fields a ``Session`` sends unless the request (or the
/// URLSession configuration's `httpAdditionalHeaders`) sets them.
enum DefaultHeaders {
    /// `User-Agent`, `Accept-Language` and, when the transport names the
    /// codings it decodes, `Accept-Encoding`.
    static func make(acceptEncoding: String?) -> [(name: String, value: String)] {
        var headers = [("User-Agent", userAgent), ("Accept-Language", acceptLanguage)]
        if let acceptEncoding { headers.append(("Accept-Encoding", acceptEncoding)) }
        return headers.map { (name: $0.0, value: $0.1) }
    }

    /// `<app>/<version> (<OS> <version>) DeferredQueue/<version>`, e.g.
    /// `HTTPDemo/unknown (Linux 6.1.0) DeferredQueue/0.3.0` — instead of
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
        return "\(app)/\(appVersion) (\(osName) \(osVersion)) DeferredQueue/\(DeferredQueueInfo.version)"
    }()

    /// The user's preferred languages, most preferred first, with quality
    /// values: `de-DE, de;q=0.9, en;q=0.8`.
    ///
    /// Apple platforms: `Locale.preferredLanguages`, as Alamofire. Linux:
    /// the POSIX locale environment, because swift-corelibs-foundation
    /// answers `["en-001"]` whatever the user's locale.
    static let acceptLanguage: String = {
        #if canImport(Darwin)
        return qualityList(Array(Locale.preferredLanguages.prefix(6)))
        #else
        return acceptLanguage(environment: ProcessInfo.processInfo.environment)
        #endif
    }()

    /// `Accept-Language` for a POSIX locale environment.
    ///
    /// The locale is `LC_ALL`, else `LC_MESSAGES`, else `LANG` (the first one
    /// set and not empty); `C`, `POSIX` or none of them means `en`. Unless it
    /// is `C`/`POSIX`, GNU's `LANGUAGE` (`de_DE:fr`) lists the languages
    /// instead, as gettext does. `de_DE.UTF-8@euro` becomes `de-DE`, followed
    /// by `de` when the list lacks it, so a server with only `de` matches.
    static func acceptLanguage(environment: [String: String]) -> String {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, let primary = languageTag(locale) else { return "en" }
        let listed = (environment["LANGUAGE"] ?? "").split(separator: ":").compactMap { languageTag(String($0)) }
        var languages: [String] = []
        for tag in listed.isEmpty ? [primary] : listed {
            languages.append(tag)
            if let base = tag.split(separator: "-").first.map(String.init), base != tag { languages.append(base) }
        }
        // The first occurrence wins: `de-DE:de` lists `de` once, second.
        var seen: Set<String> = []
        return qualityList(Array(languages.filter { seen.insert($0.lowercased()).inserted }.prefix(6)))
    }

    /// A BCP 47 tag for a POSIX locale name (`de_DE.UTF-8@euro` → `de-DE`);
    /// `nil` for `C`, `POSIX` and names that are no language.
    static func languageTag(_ locale: String) -> String? {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        guard name != "C", name != "POSIX" else { return nil }
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isASCIILetter) else { return nil }
        guard parts.count == 2, let region = parts.last, !region.isEmpty, region.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit })
        else { return parts.count == 1 ? language.lowercased() : nil }
        return "\(language.lowercased())-\(region.uppercased())"
    }

    /// `a, b;q=0.9, c;q=0.8`: the first at the implied quality 1.
    static func qualityList(_ languages: [String]) -> String {
        guard !languages.isEmpty else { return "en" }
        return languages.enumerated().map { index, language in
            index == 0 ? language : "\(language);q=0.\(10 - index)"
        }.joined(separator: ", ")
    }
}

extension Character {
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
