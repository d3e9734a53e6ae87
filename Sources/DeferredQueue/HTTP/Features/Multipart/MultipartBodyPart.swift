import Foundation
import Synchronization

/// One part of a ``MultipartFormData``: its header block, ready to write, and where
/// its content comes from.
struct MultipartBodyPart: Sendable {
    enum Content: Sendable {
        case data(Data)
        /// A regular file, read in chunks when the form is encoded.
        case file(URL)
        /// Read once, by the first encoding.
        case stream(HandedOverStream)
    }

    /// An input stream handed over to a form (`sending`), reachable only through its lock,
    /// which is what makes a non-`Sendable` `InputStream` safe to keep in a `Sendable` form.
    final class HandedOverStream: Sendable {
        /// The stream until an encoding takes it to read it, `nil` after.
        let stream: Mutex<InputStream?>

        init(_ stream: sending InputStream) {
            self.stream = Mutex(stream)
        }
    }

    /// `Content-Disposition: …\r\n[Content-Type: …\r\n]\r\n`, UTF-8.
    let headers: Data
    let content: Content
    /// The length of the content in bytes.
    let length: UInt64

    var isStream: Bool {
        if case .stream = content { return true }
        return false
    }

    /// The header block of a part, or why it cannot be written.
    ///
    /// Names and file names are sent as UTF-8 quoted strings; a `"`, CR or LF in them is
    /// percent-encoded (`%22`, `%0D`, `%0A`), as RFC 7578 §2 suggests and browsers do, so it
    /// cannot end the parameter or the header line.
    /// - Throws: ``HTTPError/MultipartEncodingFailureReason/bodyPartMIMETypeInvalid(_:)``.
    static func headers(name: String, fileName: String?, mimeType: String?) throws(HTTPError) -> Data {
        var text = "Content-Disposition: form-data; name=\"\(escape(name))\""
        if let fileName { text += "; filename=\"\(escape(fileName))\"" }
        text += "\r\n"
        if let mimeType {
            let isControl = { (scalar: Unicode.Scalar) in scalar.value < 0x20 || scalar.value == 0x7F }
            let trimmed = mimeType.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !mimeType.unicodeScalars.contains(where: isControl) else {
                throw .multipartEncodingFailed(reason: .bodyPartMIMETypeInvalid(mimeType))
            }
            text += "Content-Type: \(trimmed)\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// The header block of a part whose fields the caller gives, checked as
    /// a request's fields are (``RequestSyntax``).
    static func headers(_ fields: HTTPHeaders) throws(HTTPError) -> Data {
        var text = ""
        for field in fields {
            guard RequestSyntax.isToken(field.name) else {
                throw .urlRequestValidationFailed(reason: .invalidHeaderName(field.name))
            }
            let value: String
            switch RequestSyntax.check(value: field.value) {
            case .valid: value = field.value
            case .trimmed(let trimmed): value = trimmed
            case .invalid: throw .urlRequestValidationFailed(reason: .invalidHeaderValue(name: field.name))
            }
            text += "\(field.name): \(value)\r\n"
        }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// A name or file name, made safe inside a quoted parameter value:
    /// `"`, CR and LF percent-encoded as browsers do (the WHATWG form
    /// encoding), and so every other control character and DEL (a NUL
    /// would cut the name short where a server reads it as a C string:
    /// `shell.php\0.jpg`).
    static func escape(_ value: String) -> String {
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool { scalar == "\"" || scalar.value < 0x20 || scalar.value == 0x7F }
        guard value.unicodeScalars.contains(where: needsEscape) else { return value }
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            if needsEscape(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped.append(contentsOf: ("%" + (hex.count == 1 ? "0" : "") + hex).unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
