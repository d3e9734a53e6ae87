import DeferredQueue
import Foundation
import TestSupport
import Testing

/// Loading pinned certificates and keys: PEM, DER, files and directories,
/// and a clear error for anything else.
@Suite("TLSCertificate and TLSPublicKey: loading pins")
struct TLSCertificateTests {
    /// A self-signed certificate for `pinning.test` (its private key was
    /// thrown away when it was made), and its public key.
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBnzCCAUSgAwIBAgIUIEHYMr+ERQR9+olrF7Yan4MLPD4wCgYIKoZIzj0EAwIw
        FzEVMBMGA1UEAwwMcGlubmluZy50ZXN0MCAXDTI2MTEyNjA4MTcyN1oYDzIxMjYx
        MTAyMDgxNzI3WjAXMRUwEwYDVQQDDAxwaW5uaW5nLnRlc3QwWTATBgcqhkjOPQIB
        BggqhkjOPQMBBwNCAAQOFNyVVxLRhfn4P0bQtypOf4IX+/Y0xwWs0DQabz5B7c8+
        JenD2l9umqsTRdC0/EtKgNbPpvyc8coni/G9gSRKo2wwajAdBgNVHQ4EFgQU+3CP
        7YJS8BLjc4I/ULJfGDjeJ2YwHwYDVR0jBBgwFoAU+3CP7YJS8BLjc4I/ULJfGDje
        J2YwDwYDVR0TAQH/BAUwAwEB/zAXBgNVHREEEDAOggxwaW5uaW5nLnRlc3QwCgYI
        KoZIzj0EAwIDSQAwRgIhAPj144eqd3QozCcJQGxeyl5pkkGOslN1gWPjWeaSMRki
        AiEApamrCYX9JTnincSKa9mzIgM9AswwMfZnMXEuTBb1yOI=
        -----END CERTIFICATE-----

        """
    static let publicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEDhTclVcS0YX5+D9G0LcqTn+CF/v2
        NMcFrNA0Gm8+Qe3PPiXpw9pfbpqrE0XQtPxLSoDWz6b8nPHKJ4vxvYEkSg==
        -----END PUBLIC KEY-----

        """

    static var certificate: TLSCertificate {
        get throws { try #require(try TLSCertificate.certificates(pemEncoded: certificatePEM).first) }
    }

    @Test func aPEMCertificateRoundTripsThroughDERAndPEM() throws {
        let certificate = try Self.certificate
        #expect(certificate.derBytes.count == 419)
        #expect(try TLSCertificate(derEncoded: certificate.derBytes) == certificate)
        #expect(try TLSCertificate.certificates(pemEncoded: certificate.pemEncoded) == [certificate])
        #expect(try TLSCertificate.certificates(pemEncoded: Self.certificatePEM + Self.certificatePEM).count == 2)
    }

    @Test func theCertificatesKeyIsTheOneOpenSSLPrints() throws {
        let key = try #require(try TLSPublicKey.publicKeys(pemEncoded: Self.publicKeyPEM).first)
        #expect(try Self.certificate.publicKey == key)
        #expect(try [Self.certificate].publicKeys == [key])
        #expect(try TLSPublicKey(derEncoded: key.derBytes) == key)
        #expect(try TLSPublicKey.publicKeys(pemEncoded: key.pemEncoded) == [key])
    }

    @Test func anythingButACertificateIsAnError() throws {
        let der = try Self.certificate.derBytes
        #expect(throws: TLSCertificateError.self) { try TLSCertificate(derEncoded: der.dropLast()) }
        #expect(throws: TLSCertificateError.self) { try TLSCertificate(derEncoded: der + [0]) }
        #expect(throws: TLSCertificateError.self) { try TLSCertificate(derEncoded: []) }
        #expect(throws: TLSCertificateError.self) { try TLSCertificate(derEncoded: [0x30, 0x80, 0, 0]) }
        // A length past 16 MiB (negative where Int has 32 bits) is refused, never a trap.
        #expect(throws: TLSCertificateError.self) { try TLSCertificate(derEncoded: [0x30, 0x84, 0x80, 0, 0, 0]) }
        #expect(throws: TLSCertificateError.self) { try TLSPublicKey(derEncoded: [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]) }
        #expect(throws: TLSCertificateError.self) { try TLSCertificate(derEncoded: Self.publicKeyBytes()) }
        #expect(throws: TLSCertificateError.self) { try TLSCertificate.certificates(pemEncoded: "no PEM here") }
        #expect(throws: TLSCertificateError.self) {
            try TLSCertificate.certificates(pemEncoded: String(Self.certificatePEM.dropLast(30)))
        }
        #expect(throws: TLSCertificateError.self) {
            try TLSCertificate.certificates(pemEncoded: "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n")
        }
        #expect(throws: TLSCertificateError.self) { try TLSPublicKey(derEncoded: der) }
        #expect(throws: TLSCertificateError.self) { try TLSPublicKey.publicKeys(pemEncoded: Self.certificatePEM) }
        // Random bytes never trap.
        var random = SeededRandom(seed: 25)
        for _ in 0..<2000 {
            var bytes = der
            bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            _ = try? TLSCertificate(derEncoded: bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
        }
    }

    static func publicKeyBytes() throws -> [UInt8] {
        try #require(try TLSPublicKey.publicKeys(pemEncoded: publicKeyPEM).first).derBytes
    }

    @Test func filesArePEMOrDERAndADirectoryIsReadInNameOrder() throws {
        let directory = try TemporaryDirectory()
        let certificate = try Self.certificate
        func write(_ name: String, _ data: Data) throws { try data.write(to: directory.url.appendingPathComponent(name)) }
        try write("b.pem", Data((Self.certificatePEM + Self.certificatePEM).utf8))
        try write("a.DER", Data(certificate.derBytes))
        try write("c.crt", Data(Self.certificatePEM.utf8))
        try write("notes.txt", Data("not a certificate".utf8))
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("nested.pem"), withIntermediateDirectories: false)
        #expect(try TLSCertificate.certificates(contentsOf: directory.url.appendingPathComponent("a.DER")) == [certificate])
        #expect(try TLSCertificate.certificates(inDirectory: directory.url).count == 4)

        try write("d.cer", Data("garbage".utf8))
        let broken = directory.url.appendingPathComponent("d.cer")
        #expect(throws: TLSCertificateError.notACertificate(source: broken.path)) {
            try TLSCertificate.certificates(inDirectory: directory.url)
        }
        let missing = directory.url.appendingPathComponent("missing.pem")
        #expect { try TLSCertificate.certificates(contentsOf: missing) } throws: {
            guard case .unreadable(let file, _) = $0 as? TLSCertificateError else { return false }
            return file == missing
        }
        #expect(throws: TLSCertificateError.self) { try TLSCertificate.certificates(inDirectory: missing) }
    }

    @Test func aBundleWithoutCertificatesHasNone() {
        #expect(TLSCertificate.certificates(in: Bundle(for: BundleMarker.self)).isEmpty)
    }

    private final class BundleMarker {}
}
