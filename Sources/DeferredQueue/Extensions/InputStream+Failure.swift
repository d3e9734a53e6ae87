import Foundation

extension InputStream {
    /// Why a `read` returned -1: the stream's error, asked for only when its
    /// status says it has one (corelibs traps reading `streamError` of a
    /// stream without one, as of a subclass whose `read` returned -1).
    var readFailure: any Error {
        (streamStatus == .error ? streamError : nil) ?? CocoaError(.fileReadUnknown)
    }
}
