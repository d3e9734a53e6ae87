import Foundation

/// The few DER (X.690) steps certificate pinning needs: walk a certificate
/// to its `SubjectPublicKeyInfo`. Definite lengths only, as DER requires;
/// anything else is `nil`, never a trap.
enum DER {
    /// One element: its tag, its content, and where the next one starts.
    struct Element {
        let tag: UInt8
        /// The whole encoding: tag, length and content.
        let encoding: Range<Int>
        let content: Range<Int>
    }

    /// The element starting at `start` in `bytes`, if it is complete and well formed.
    static func element(in bytes: [UInt8], at start: Int, before end: Int? = nil) -> Element? {
        let end = end ?? bytes.count
        guard start + 2 <= end else { return nil }
        let tag = bytes[start]
        // Multi-byte tags never occur in certificates' structure.
        guard tag & 0x1F != 0x1F else { return nil }
        var index = start + 1
        let first = Int(bytes[index])
        index += 1
        var length = 0
        if first < 0x80 {
            length = first
        } else {
            let count = first & 0x7F
            // 0x80 (indefinite) is not DER; 3 bytes of length (16 MiB) are
            // ample, and keep the length positive where `Int` has 32 bits.
            guard (1...3).contains(count), index + count <= end else { return nil }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard length <= end - index else { return nil }
        return Element(tag: tag, encoding: start..<(index + length), content: index..<(index + length))
    }

    static let sequence: UInt8 = 0x30
    static let bitString: UInt8 = 0x03
    static let integer: UInt8 = 0x02

    /// The `SubjectPublicKeyInfo` of an X.509 certificate, whole, when
    /// `bytes` is one (RFC 5280 §4.1: the TBSCertificate's seventh field,
    /// or sixth when the version is absent).
    static func subjectPublicKeyInfo(ofCertificate bytes: [UInt8]) -> Range<Int>? {
        guard let certificate = element(in: bytes, at: 0), certificate.tag == sequence,
              certificate.encoding.upperBound == bytes.count,
              let tbs = element(in: bytes, at: certificate.content.lowerBound, before: certificate.content.upperBound),
              tbs.tag == sequence
        else { return nil }
        var index = tbs.content.lowerBound
        guard var field = element(in: bytes, at: index, before: tbs.content.upperBound) else { return nil }
        if field.tag == 0xA0 {  // [0] EXPLICIT version
            index = field.encoding.upperBound
            guard let next = element(in: bytes, at: index, before: tbs.content.upperBound) else { return nil }
            field = next
        }
        // serialNumber, signature, issuer, validity, subject.
        let expected: [UInt8] = [integer, sequence, sequence, sequence, sequence]
        for tag in expected {
            guard field.tag == tag else { return nil }
            index = field.encoding.upperBound
            guard let next = element(in: bytes, at: index, before: tbs.content.upperBound) else { return nil }
            field = next
        }
        return isSubjectPublicKeyInfo(bytes, field) ? field.encoding : nil
    }

    /// Whether `element` is `SEQUENCE { AlgorithmIdentifier, BIT STRING }`.
    static func isSubjectPublicKeyInfo(_ bytes: [UInt8], _ element: Element) -> Bool {
        guard element.tag == sequence,
              let algorithm = Self.element(in: bytes, at: element.content.lowerBound, before: element.content.upperBound),
              algorithm.tag == sequence,
              let key = Self.element(in: bytes, at: algorithm.encoding.upperBound, before: element.content.upperBound),
              key.tag == bitString
        else { return false }
        return key.encoding.upperBound == element.content.upperBound
    }
}

/// PEM (RFC 7468) blocks of one label in a text.
enum PEM {
    /// The decoded bodies of every `-----BEGIN label-----` block in `text`,
    /// in order; `nil` when a block is unterminated or not Base64.
    static func blocks(labelled label: String, in text: String) -> [[UInt8]]? {
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        var blocks: [[UInt8]] = []
        var rest = text[...]
        while let start = rest.range(of: begin) {
            guard let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex) else { return nil }
            let body = rest[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let data = Data(base64Encoded: String(body)), !data.isEmpty else { return nil }
            blocks.append([UInt8](data))
            rest = rest[stop.upperBound...]
        }
        return blocks
    }
}
