import Foundation

/// A public key, as the DER bytes of its `SubjectPublicKeyInfo` (algorithm
/// and key): what a ``PublicKeysTrustEvaluator`` pins. Alamofire's `SecKey`,
/// on every platform.
///
/// Take keys from certificates (``TLSCertificate/publicKey``) or from
/// `PUBLIC KEY` PEM blocks (`openssl x509 -pubkey -noout`). Two keys are
/// equal when their `SubjectPublicKeyInfo` bytes are.
public struct TLSPublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The `SubjectPublicKeyInfo` DER encoding.
    public let derBytes: [UInt8]

    init(validated bytes: [UInt8]) {
        derBytes = bytes
    }

    /// A key from the DER encoding of its `SubjectPublicKeyInfo`.
    ///
    /// - Throws: ``TLSCertificateError/notAPublicKey(source:)`` when the
    ///   bytes are not one.
    public init(derEncoded bytes: some Sequence<UInt8>) throws(TLSCertificateError) {
        let bytes = Array(bytes)
        guard let element = DER.element(in: bytes, at: 0), element.encoding.upperBound == bytes.count,
              DER.isSubjectPublicKeyInfo(bytes, element)
        else { throw .notAPublicKey(source: "\(bytes.count) bytes of DER") }
        derBytes = bytes
    }

    /// Every `PUBLIC KEY` block of a PEM text, in order.
    ///
    /// - Throws: ``TLSCertificateError/notAPublicKey(source:)`` when the text
    ///   has no public key, or a block that is not one.
    public static func publicKeys(pemEncoded text: String) throws(TLSCertificateError) -> [TLSPublicKey] {
        guard let blocks = PEM.blocks(labelled: "PUBLIC KEY", in: text), !blocks.isEmpty else {
            throw .notAPublicKey(source: "PEM text without a PUBLIC KEY block")
        }
        return try blocks.map { block throws(TLSCertificateError) in try TLSPublicKey(derEncoded: block) }
    }

    /// The key as one `PUBLIC KEY` PEM block.
    public var pemEncoded: String {
        PEM.encode(derBytes, label: "PUBLIC KEY")
    }

    /// The first bytes of the key, in hex: enough to tell keys apart in a log.
    public var description: String {
        "TLSPublicKey(\(derBytes.suffix(8).map { String(format: "%02x", $0) }.joined()))"
    }
}

extension PEM {
    /// `bytes` as one PEM block, 64 Base64 characters a line.
    static func encode(_ bytes: [UInt8], label: String) -> String {
        let base64 = Data(bytes).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }
}
