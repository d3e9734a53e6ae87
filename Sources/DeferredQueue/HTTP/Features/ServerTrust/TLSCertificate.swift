import Foundation

/// An X.509 certificate, as DER bytes: what a ``PinnedCertificatesTrustEvaluator``
/// pins and a ``ServerTrust`` presents. Alamofire's `SecCertificate`, on
/// every platform.
///
/// Load pinned certificates from PEM or DER data, from files, or from every
/// certificate file in a directory (the counterpart of Alamofire's
/// `Bundle.main.af.certificates`):
///
/// ```swift
/// let pinned = try TLSCertificate.certificates(inDirectory: URL(fileURLWithPath: "/etc/myapp/pins"))
/// ```
///
/// Two certificates are equal when their DER bytes are.
public struct TLSCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding.
    public let derBytes: [UInt8]
    /// The range of its `SubjectPublicKeyInfo` in ``derBytes``.
    private let keyRange: Range<Int>

    /// A certificate from its DER encoding.
    ///
    /// - Throws: ``TLSCertificateError/notACertificate(source:)`` when the
    ///   bytes are not one X.509 certificate.
    public init(derEncoded bytes: some Sequence<UInt8>) throws(TLSCertificateError) {
        let bytes = Array(bytes)
        guard let keyRange = DER.subjectPublicKeyInfo(ofCertificate: bytes) else {
            throw .notACertificate(source: "\(bytes.count) bytes of DER")
        }
        derBytes = bytes
        self.keyRange = keyRange
    }

    /// Every `CERTIFICATE` block of a PEM text, in order.
    ///
    /// - Throws: ``TLSCertificateError/notACertificate(source:)`` when the
    ///   text has no certificate, or a block that is not one.
    public static func certificates(pemEncoded text: String) throws(TLSCertificateError) -> [TLSCertificate] {
        guard let blocks = PEM.blocks(labelled: "CERTIFICATE", in: text), !blocks.isEmpty else {
            throw .notACertificate(source: "PEM text without a CERTIFICATE block")
        }
        return try blocks.map { block throws(TLSCertificateError) in try TLSCertificate(derEncoded: block) }
    }

    /// The certificates in a file: PEM (any number) or DER (one).
    ///
    /// - Throws: ``TLSCertificateError/unreadable(file:reason:)`` or
    ///   ``TLSCertificateError/notACertificate(source:)`` (naming the file).
    public static func certificates(contentsOf file: URL) throws(TLSCertificateError) -> [TLSCertificate] {
        let data: Data
        do {
            data = try Data(readingFile: file)
        } catch {
            throw .unreadable(file: file, reason: "\(error.localizedDescription)")
        }
        do {
            if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN") {
                return try certificates(pemEncoded: text)
            }
            return [try TLSCertificate(derEncoded: data)]
        } catch {
            throw .notACertificate(source: file.path)
        }
    }

    /// The file name extensions ``certificates(inDirectory:)`` reads (in any case).
    public static let fileExtensions: Set<String> = ["cer", "crt", "der", "pem"]

    /// The certificates of every file directly in `directory` whose name
    /// ends in one of ``fileExtensions``, in file name order. Other files
    /// and subdirectories are ignored; a certificate file that cannot be
    /// read or parsed is an error, never skipped silently.
    public static func certificates(inDirectory directory: URL) throws(TLSCertificateError) -> [TLSCertificate] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw .unreadable(file: directory, reason: "\(error.localizedDescription)")
        }
        var certificates: [TLSCertificate] = []
        for name in names.sorted() where fileExtensions.contains((name as NSString).pathExtension.lowercased()) {
            let file = directory.appendingPathComponent(name, isDirectory: false)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            certificates += try Self.certificates(contentsOf: file)
        }
        return certificates
    }

    /// The certificates among `bundle`'s resources (files ending in `.cer`,
    /// `.crt` or `.der`, as Alamofire reads them); unreadable ones are left
    /// out, as Alamofire does. The default of
    /// ``PinnedCertificatesTrustEvaluator/init(certificates:acceptSelfSignedCertificates:performDefaultValidation:validateHost:)``.
    public static func certificates(in bundle: Bundle) -> [TLSCertificate] {
        let paths = Set(["cer", "CER", "crt", "CRT", "der", "DER"].flatMap { bundle.paths(forResourcesOfType: $0, inDirectory: nil) })
        return paths.sorted().compactMap { path in
            (try? Data(readingFile: URL(fileURLWithPath: path))).flatMap { try? TLSCertificate(derEncoded: $0) }
        }
    }

    /// The certificate's public key (its `SubjectPublicKeyInfo`).
    public var publicKey: TLSPublicKey {
        TLSPublicKey(validated: Array(derBytes[keyRange]))
    }

    /// The certificate as one PEM block.
    public var pemEncoded: String {
        PEM.encode(derBytes, label: "CERTIFICATE")
    }

    public var description: String {
        "TLSCertificate(\(derBytes.count) bytes, key \(publicKey.description))"
    }

    public static func == (lhs: TLSCertificate, rhs: TLSCertificate) -> Bool { lhs.derBytes == rhs.derBytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }
}

extension Array where Element == TLSCertificate {
    /// The certificates' public keys, in order.
    public var publicKeys: [TLSPublicKey] { map(\.publicKey) }
}

/// Why certificates or keys could not be loaded.
public enum TLSCertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The data (or the named file) holds no X.509 certificate, or a broken one.
    case notACertificate(source: String)
    /// The data (or the named file) holds no `SubjectPublicKeyInfo`, or a broken one.
    case notAPublicKey(source: String)
    /// The data (or the named file) holds no private key, or a broken one.
    case notAPrivateKey(source: String)
    /// The file or directory could not be read.
    case unreadable(file: URL, reason: String)

    public var description: String {
        switch self {
        case .notACertificate(let source): "not an X.509 certificate (PEM or DER): \(source)"
        case .notAPublicKey(let source): "not a public key (SubjectPublicKeyInfo, PEM or DER): \(source)"
        case .notAPrivateKey(let source): "not a private key (unencrypted PEM or DER): \(source)"
        case .unreadable(let file, let reason): "cannot read \(file.path): \(reason)"
        }
    }
}
