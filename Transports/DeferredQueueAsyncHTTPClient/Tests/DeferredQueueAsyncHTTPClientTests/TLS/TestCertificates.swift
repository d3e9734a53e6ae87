import Crypto
import DeferredQueue
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// Certificates made at run time for the TLS tests (no private key is ever
/// committed): a private CA, intermediates under it, and leaves signed by a
/// CA or by themselves.
struct TestCertificates: Sendable {
    /// A certificate with its private key, in NIOSSL's types (and the key in PEM).
    struct Identity: Sendable {
        let certificate: NIOSSLCertificate
        let key: NIOSSLPrivateKey
        let keyPEM: String

        /// The certificate as the library's type.
        var tlsCertificate: TLSCertificate {
            get throws { try TLSCertificate(derEncoded: certificate.toDERBytes()) }
        }
    }

    /// What is wrong with a leaf (`.good`: nothing; `.client`: a client certificate).
    enum Leaf: Sendable {
        case good, expired, notYetValid, wrongHost, selfSigned, client
    }

    /// This CA's certificate (the root, or an intermediate).
    let ca: NIOSSLCertificate
    private let caKey: P256.Signing.PrivateKey
    private let caName: DistinguishedName

    /// A new private root CA, valid from an hour ago for a day.
    init(name: String = "DeferredQueue Test CA") throws {
        let key = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName(name) }
        try self.init(name: caName, key: key, issuerName: caName, issuerKey: key)
    }

    private init(
        name: DistinguishedName, key: P256.Signing.PrivateKey, issuerName: DistinguishedName,
        issuerKey: P256.Signing.PrivateKey
    ) throws {
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400, issuer: issuerName, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(issuerKey)
        )
        ca = try Self.nioCertificate(certificate)
        caKey = key
        caName = name
    }

    /// An intermediate CA issued by this one.
    func intermediate(name: String) throws -> TestCertificates {
        try TestCertificates(
            name: try DistinguishedName { CommonName(name) }, key: P256.Signing.PrivateKey(), issuerName: caName, issuerKey: caKey
        )
    }

    /// This CA's certificate as the library's type.
    var tlsCertificate: TLSCertificate {
        get throws { try TLSCertificate(derEncoded: ca.toDERBytes()) }
    }

    /// A leaf for 127.0.0.1 and localhost (or, for `.wrongHost`, only for
    /// `wrong.invalid`), signed by this CA (or, for `.selfSigned`, by
    /// itself), with a new key or `key`.
    func leaf(_ kind: Leaf, key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) throws -> Identity {
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
                try ExtendedKeyUsage([kind == .client ? .clientAuth : .serverAuth])
            },
            issuerPrivateKey: Certificate.PrivateKey(issuerKey)
        )
        return Identity(
            certificate: try Self.nioCertificate(certificate),
            key: try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem),
            keyPEM: key.pemRepresentation
        )
    }

    private static func nioCertificate(_ certificate: Certificate) throws -> NIOSSLCertificate {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return try NIOSSLCertificate(bytes: serializer.serializedBytes, format: .der)
    }
}
