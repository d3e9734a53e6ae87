/// Facts about this build of the library.
///
/// As Alamofire's `AFInfo`: a namespace rather than a type named after the
/// module, which would shadow the module's name (`DeferredQueue.Deferred`).
public enum DeferredQueueInfo {
    /// The library's version, `major.minor.patch` (Semantic Versioning).
    ///
    /// The one place it is written: the default `User-Agent`
    /// (`… DeferredQueue/0.3.0`) and HTTPDemo use it, and a test checks that
    /// README.md's `.package(… from:)` line and CHANGELOG.md's latest release
    /// agree with it.
    public static let version = "0.3.0"
}
