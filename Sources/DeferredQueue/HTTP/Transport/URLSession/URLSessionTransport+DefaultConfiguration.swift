import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransport {
    /// The configuration `Session()`, ``Session/default`` and
    /// `URLSessionTransport()` use: `URLSessionConfiguration.default` without
    /// a response cache (`urlCache` is `nil`).
    ///
    /// A library should not write a disk cache into the user's home unasked:
    /// `URLCache.shared` keeps one on disk on every platform, and
    /// swift-corelibs-foundation creates its directory,
    /// `~/.cache/org.swift.foundation.URLCache/<process>`, as soon as any
    /// `URLSessionConfiguration` is made (`.default` sets `URLCache.shared`).
    /// So on Linux, the first time this runs, `URLCache.shared` becomes a
    /// cache in memory — unless that directory exists already (the process,
    /// or an earlier run, made it), and then the shared cache is left alone.
    ///
    /// Start from this configuration to change timeouts or headers and still
    /// cache nothing; set `urlCache` to cache (on Apple platforms: the Linux
    /// transport never uses one, see ``URLSessionTransport``).
    ///
    /// - Note: On Linux, a program that sets its own `URLCache.shared` and
    ///   uses this configuration should set it after the first use.
    public static var defaultConfiguration: URLSessionConfiguration {
        #if canImport(FoundationNetworking)
        _ = memoryOnlySharedCache
        #endif
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        return configuration
    }

    #if canImport(FoundationNetworking)
    /// Installs, once, a `URLCache.shared` that keeps nothing on disk —
    /// unless the default one's directory exists already: then there is
    /// nothing left to spare, and a shared cache the program may be using
    /// is left alone.
    ///
    /// corelibs' `URLCache` creates its directory in `init`, even with a disk
    /// capacity of 0: a path that cannot be a directory (`/dev/null`) is the
    /// one way to have none, and the cache then keeps entries in memory only.
    private static let memoryOnlySharedCache: Void = {
        guard !FileManager.default.fileExists(atPath: sharedCacheDirectory.path) else { return }
        URLCache.shared = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: "/dev/null")
    }()

    /// Where corelibs' `URLCache.shared` keeps its files:
    /// `$XDG_CACHE_HOME` (or `$HOME/.cache`)`/org.swift.foundation.URLCache/<bundle id or process name>`.
    ///
    /// The caches directory as `URLCache` finds it, without creating it:
    /// `homeDirectoryForCurrentUser` would be the password database's home,
    /// not `$HOME`.
    static var sharedCacheDirectory: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".cache")
        let name = (Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName)
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\\", with: "_").replacingOccurrences(of: ":", with: "_")
        return caches.appendingPathComponent("org.swift.foundation.URLCache").appendingPathComponent(name)
    }
    #endif
}
