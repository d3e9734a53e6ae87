import Foundation
import LockSupport
import Synchronization

/// A `multipart/form-data` request body (RFC 7578): text fields and files, sent the way an
/// HTML form with `enctype="multipart/form-data"` sends them.
///
/// Append the parts in the order they should be sent, then either hand the form to
/// `Session.upload(multipartFormData:to:…)`, which encodes and sends it, or encode it
/// yourself with ``encode()`` or ``writeEncodedData(to:)``:
///
/// ```swift
/// let upload = session.upload(multipartFormData: { form in
///     form.append(Data("Ada".utf8), withName: "name")
///     form.append(URL(fileURLWithPath: "/tmp/avatar.png"), withName: "avatar")   // image/png, "avatar.png"
/// }, to: "https://example.com/profile")
/// ```
///
/// The encoded body is
///
/// ```
/// --<boundary>\r\n
/// Content-Disposition: form-data; name="name"\r\n
/// \r\n
/// Ada\r\n
/// --<boundary>\r\n
/// Content-Disposition: form-data; name="avatar"; filename="avatar.png"\r\n
/// Content-Type: image/png\r\n
/// \r\n
/// <the file's bytes>\r\n
/// --<boundary>--\r\n
/// ```
///
/// Files are not read when appended, only checked (that they exist, are regular files and
/// readable) and measured; encoding reads them in 1 MiB chunks, so ``writeEncodedData(to:)``
/// writes a form holding a file of any size with flat memory. An upload encodes a form of
/// at most ``encodingMemoryThreshold`` bytes in memory and a bigger one to a temporary file,
/// which it streams from and removes when the request ends.
///
/// `append` never throws: a problem it finds (a missing file, a directory, a URL that is not
/// a file URL) is remembered, the part is left out, and the first such problem is thrown by
/// the next ``encode()`` or ``writeEncodedData(to:)`` as
/// ``HTTPError/multipartEncodingFailed(reason:)``.
///
/// - Note: Build a form in one place (the `upload(multipartFormData:)` builder closure is
///   meant for that). It is nevertheless safe to use from several threads: all its mutable
///   state sits behind one lock, and an encoding works on the parts appended before it began.
/// - Warning: The boundary must not occur in any part's content. The random default makes that
///   astronomically unlikely; a boundary you pass yourself must be chosen with that in mind.
public final class MultipartFormData: Sendable {
    /// The size up to which an upload encodes a form in memory: 10 MB, as in Alamofire. A
    /// bigger form is written to a temporary file with ``writeEncodedData(to:)`` and streamed
    /// from there.
    public static let encodingMemoryThreshold: UInt64 = 10_000_000

    /// How much of a file or stream part is read at a time while encoding: 1 MiB.
    static let chunkSize = 1024 * 1024

    /// The file manager that checks and measures file parts.
    public let fileManager: FileManager

    /// The boundary line that separates the parts, for example
    /// `multipart.boundary.3f9a0c12d4e5b678`.
    public let boundary: String

    /// The `Content-Type` header value for this form: `multipart/form-data; boundary=…`
    /// (the boundary quoted when it holds characters a token may not).
    public var contentType: String {
        let isToken = boundary.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && !" ()<>@,;:\\\"/[]?=".unicodeScalars.contains(scalar)
        }
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    /// The size in bytes of the encoded form, as ``encode()`` would produce it now.
    public var contentLength: UInt64 {
        state.withLock(owner: self) { $0.contentLength(boundary: boundary) }
    }

    struct State: Sendable {
        var parts: [MultipartBodyPart] = []
        /// The first problem found while appending, thrown by every encoding.
        var failure: HTTPError?

        mutating func add(_ part: MultipartBodyPart) {
            if failure == nil { parts.append(part) }
        }

        mutating func fail(_ error: HTTPError) {
            if failure == nil { failure = error }
        }

        /// Saturating, so an absurd stream length cannot trap: encoding reports it instead.
        func contentLength(boundary: String) -> UInt64 {
            let delimiter = UInt64(boundary.utf8.count) + 4          // "--" boundary CRLF
            var total = delimiter + 2                                 // "--" boundary "--" CRLF
            for part in parts {
                for length in [delimiter, UInt64(part.headers.count), part.length, 2] {
                    let (sum, overflow) = total.addingReportingOverflow(length)
                    total = overflow ? .max : sum
                }
            }
            return total
        }
    }

    /// Every mutable field of the form (its parts, and the first problem met while
    /// appending) under one lock.
    let state: Mutex<State>

    /// Creates an empty form.
    ///
    /// - Parameters:
    ///   - fileManager: The file manager that checks and measures file parts. Defaults to `.default`.
    ///   - boundary: The boundary between parts: 1 to 70 characters from letters, digits and
    ///     `'()+_,-./:=?` or a space (not last), as RFC 2046 allows. Defaults to a random
    ///     `multipart.boundary.<16 hex digits>`. An invalid one makes every encoding throw
    ///     ``HTTPError/MultipartEncodingFailureReason/boundaryInvalid(_:)``.
    public init(fileManager: FileManager = .default, boundary: String? = nil) {
        self.fileManager = fileManager
        let boundary = boundary ?? Self.randomBoundary()
        self.boundary = boundary
        var state = State()
        if !Self.isValidBoundary(boundary) { state.fail(.multipartEncodingFailed(reason: .boundaryInvalid(boundary))) }
        self.state = Mutex(state)
    }

    /// Appends a part whose content is `data`: a text field, or a file held in memory.
    ///
    /// ```swift
    /// form.append(Data("Ada".utf8), withName: "name")
    /// form.append(jpegData, withName: "photo", fileName: "photo.jpg", mimeType: "image/jpeg")
    /// ```
    ///
    /// - Parameters:
    ///   - data: The part's content.
    ///   - name: The form field's name (`Content-Disposition`'s `name`).
    ///   - fileName: The file name to send (`filename`), or `nil` for a plain field.
    ///   - mimeType: The part's `Content-Type`, or `nil` to send none (a receiver then assumes
    ///     `text/plain`). One that is empty or holds a control character is remembered as
    ///     ``HTTPError/MultipartEncodingFailureReason/bodyPartMIMETypeInvalid(_:)``.
    public func append(_ data: Data, withName name: String, fileName: String? = nil, mimeType: String? = nil) {
        do {
            let headers = try MultipartBodyPart.headers(name: name, fileName: fileName, mimeType: mimeType)
            state.withLock(owner: self) {
                $0.add(MultipartBodyPart(headers: headers, content: .data(data), length: UInt64(data.count)))
            }
        } catch {
            fail(error)
        }
    }

    /// Appends a file, named after its last path component, with a MIME type guessed from its
    /// extension (`png` → `image/png`, `json` → `application/json`…; unknown ones are
    /// `application/octet-stream`).
    ///
    /// The file is checked and measured now and read when the form is encoded; see
    /// the file URL form of `append(_:withName:fileName:mimeType:)` for the problems it may remember.
    ///
    /// - Parameters:
    ///   - fileURL: A `file:` URL of a regular file.
    ///   - name: The form field's name.
    public func append(_ fileURL: URL, withName name: String) {
        let fileName = fileURL.lastPathComponent
        guard !fileName.isEmpty, fileName != "/" else {
            guard fileURL.isFileURL else { return fail(.bodyPartURLInvalid(url: fileURL)) }
            return fail(.bodyPartFilenameInvalid(in: fileURL))
        }
        append(fileURL, withName: name, fileName: fileName, mimeType: MIMETypeTable.forExtension(fileURL.pathExtension))
    }

    /// Appends a file with the file name and MIME type you give.
    ///
    /// The file is checked and measured now and read, in chunks, when the form is encoded; it
    /// must keep its size until then. A problem is remembered and thrown by the next encoding:
    /// ``HTTPError/MultipartEncodingFailureReason/bodyPartURLInvalid(url:)`` for a URL that is
    /// not a file URL, `bodyPartFileNotReachable` when nothing is there,
    /// `bodyPartFileIsDirectory`, `bodyPartFileNotReadable`, and `bodyPartFileSizeNotAvailable`
    /// for something that is not a regular file (a device or a pipe).
    ///
    /// - Parameters:
    ///   - fileURL: A `file:` URL of a regular file (a symbolic link to one is followed).
    ///   - name: The form field's name.
    ///   - fileName: The file name to send.
    ///   - mimeType: The part's `Content-Type`.
    public func append(_ fileURL: URL, withName name: String, fileName: String, mimeType: String) {
        do {
            let length = try measure(fileURL)
            let headers = try MultipartBodyPart.headers(name: name, fileName: fileName, mimeType: mimeType)
            state.withLock(owner: self) {
                $0.add(MultipartBodyPart(headers: headers, content: .file(fileURL), length: length))
            }
        } catch {
            fail(error)
        }
    }

    /// Appends `length` bytes read from `stream` when the form is encoded.
    ///
    /// The stream is handed over (`sending`): the form opens it, reads exactly `length` bytes
    /// in chunks, and closes it. It can be read once, so a form with a stream part can be
    /// encoded once; a second encoding throws
    /// ``HTTPError/MultipartEncodingFailureReason/inputStreamAlreadyRead``. A stream that ends
    /// early, or holds more than `length` bytes, makes the encoding throw
    /// `inputStreamLengthMismatch`; one that fails, `inputStreamReadFailed`. In an upload,
    /// stream parts count against the session's ``Session/maximumStreamedBodySize``.
    ///
    /// - Parameters:
    ///   - stream: An unopened input stream, no longer used by the caller.
    ///   - length: The number of bytes the part holds.
    ///   - name: The form field's name.
    ///   - fileName: The file name to send.
    ///   - mimeType: The part's `Content-Type`.
    public func append(
        _ stream: sending InputStream, withLength length: UInt64, name: String, fileName: String, mimeType: String
    ) {
        do {
            let headers = try MultipartBodyPart.headers(name: name, fileName: fileName, mimeType: mimeType)
            let part = MultipartBodyPart(headers: headers, content: .stream(.init(stream)), length: length)
            state.withLock(owner: self) { $0.add(part) }
        } catch {
            fail(error)
        }
    }

    /// Appends `length` bytes read from `stream` under the part header
    /// fields `headers`, written as given, in order (Alamofire's primitive:
    /// the other `append` methods write `Content-Disposition` and
    /// `Content-Type` for you). Read once, as
    /// ``append(_:withLength:name:fileName:mimeType:)``'s stream is.
    ///
    /// A field name that is not an RFC 9110 token, or a value with a control
    /// character (a line break would end the part's header block early), makes
    /// the encoding throw ``HTTPError/urlRequestValidationFailed(reason:)``
    /// naming the field; values lose their leading and trailing spaces and tabs.
    ///
    /// - Parameters:
    ///   - stream: An unopened input stream, no longer used by the caller.
    ///   - length: The number of bytes the part holds.
    ///   - headers: The part's header fields.
    public func append(_ stream: sending InputStream, withLength length: UInt64, headers: HTTPHeaders) {
        do {
            let encoded = try MultipartBodyPart.headers(headers)
            let part = MultipartBodyPart(headers: encoded, content: .stream(.init(stream)), length: length)
            state.withLock(owner: self) { $0.add(part) }
        } catch {
            fail(error)
        }
    }

    private func fail(_ reason: HTTPError.MultipartEncodingFailureReason) {
        fail(.multipartEncodingFailed(reason: reason))
    }

    private func fail(_ error: HTTPError) {
        state.withLock(owner: self) { $0.fail(error) }
    }

    /// The size of the regular file at `fileURL`, or why it cannot be a part.
    private func measure(_ fileURL: URL) throws(HTTPError) -> UInt64 {
        func failure(_ reason: HTTPError.MultipartEncodingFailureReason) -> HTTPError {
            .multipartEncodingFailed(reason: reason)
        }
        guard fileURL.isFileURL else { throw failure(.bodyPartURLInvalid(url: fileURL)) }
        let path = fileURL.path
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw failure(.bodyPartFileNotReachable(at: fileURL))
        }
        guard !isDirectory.boolValue else { throw failure(.bodyPartFileIsDirectory(at: fileURL)) }
        guard fileManager.isReadableFile(atPath: path) else {
            throw failure(.bodyPartFileNotReadable(at: fileURL, error: nil))
        }
        do {
            // attributesOfItem describes a symbolic link itself, so ask about its target.
            let attributes = try fileManager.attributesOfItem(atPath: fileURL.resolvingSymlinksInPath().path)
            guard attributes[.type] as? FileAttributeType == .typeRegular, let size = Self.size(attributes) else {
                throw failure(.bodyPartFileSizeNotAvailable(at: fileURL, error: nil))
            }
            return size
        } catch {
            throw failure(.bodyPartFileSizeNotAvailable(at: fileURL, error: error))
        }
    }

    static func size(_ attributes: [FileAttributeKey: Any]) -> UInt64? {
        switch attributes[.size] {
        case let size as UInt64: return size
        case let size as Int where size >= 0: return UInt64(size)
        case let size as NSNumber: return size.uint64Value
        default: return nil
        }
    }

    /// `multipart.boundary.` and 16 random hex digits: as long as
    /// Alamofire's `alamofire.boundary.…`, so a form's encoded length is the same.
    private static func randomBoundary() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return "multipart.boundary." + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// RFC 2046 §5.1.1: 1 to 70 `bchars`, the last not a space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = "'()+_,-./:=? "
        let scalars = boundary.unicodeScalars
        return (1...70).contains(scalars.count) && scalars.last != " " && scalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || allowed.unicodeScalars.contains(scalar))
        }
    }
}
