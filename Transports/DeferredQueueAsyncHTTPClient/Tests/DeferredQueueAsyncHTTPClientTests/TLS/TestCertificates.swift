import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// Certificates made at run time for the TLS tests (no private key is ever
/// committed): a private CA, and leaves signed by it or by themselves.
struct TestCertificates: Sendable {
    /// A certificate with its private key, in NIOSSL's types.
    struct Identity: Sendable {
        let certificate: NIOSSLCertificate
        let key: NIOSSLPrivateKey
    }

    /// What is wrong with a leaf (`.good`: nothing).
    enum Leaf: Sendable {
        case good, expired, notYetValid, wrongHost, selfSigned
    }

    let ca: NIOSSLCertificate
    private let caKey: P256.Signing.PrivateKey
    private let caName: DistinguishedName

    /// A new private CA, valid from an hour ago for a day.
    init(name: String = "DeferredQueue Test CA") throws {
        let key = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName(name) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: caName, subject: caName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        ca = try Self.nioCertificate(certificate)
        caKey = key
        self.caName = caName
    }

    /// A leaf for 127.0.0.1 and localhost (or, for `.wrongHost`, only for
    /// `wrong.invalid`), signed by this CA (or, for `.selfSigned`, by itself).
    func leaf(_ kind: Leaf) throws -> Identity {
        let key = P256.Signing.PrivateKey()
        let now = Date()
        let (notBefore, notAfter): (Date, Date) =
            switch kind {
            case .expired: (now - 2 * 86_400, now - 86_400)
            case .notYetValid: (now + 86_400, now + 2 * 86_400)
            default: (now - 3600, now + 86_400)
            }
        let names: [GeneralName] =
            kind == .wrongHost
            ? [.dnsName("wrong.invalid")]
            : [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]
        let subject = try DistinguishedName { CommonName(kind == .wrongHost ? "wrong.invalid" : "127.0.0.1") }
        let issuerKey = kind == .selfSigned ? key : caKey
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter,
            issuer: kind == .selfSigned ? subject : caName, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                SubjectAlternativeNames(names)
                try ExtendedKeyUsage([.serverAuth])
            },
            issuerPrivateKey: Certificate.PrivateKey(issuerKey)
        )
        return Identity(
            certificate: try Self.nioCertificate(certificate),
            key: try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
        )
    }

    private static func nioCertificate(_ certificate: Certificate) throws -> NIOSSLCertificate {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
    }
}
