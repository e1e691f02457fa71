import CCrypto

/// A parsed X.509 certificate, owning one libcrypto `X509` (freed in `deinit`, exactly once).
///
/// Everything the verifier reads — names, validity, extensions, the public key — is decoded once at
/// construction, so reading it later costs nothing and needs no lock.
///
/// `@unchecked Sendable`: the `X509` is never mutated after construction, and libcrypto's read
/// paths (`X509_verify`) are safe to call from several threads at once.
public final class X509Certificate: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The owned `X509 *`.
    let x509: OpaquePointer
    /// The exact DER bytes the certificate was parsed from.
    public let derRepresentation: [UInt8]
    /// The subject Name, DER-encoded (compare names as bytes).
    public let subjectDER: [UInt8]
    /// The issuer Name, DER-encoded.
    public let issuerDER: [UInt8]
    /// The subject in OpenSSL's one-line form, e.g. `/CN=Apple Root CA - G3/OU=…`, for messages.
    public let subjectSummary: String
    /// The issuer in the same one-line form.
    public let issuerSummary: String
    /// The start of the validity window, in milliseconds since the epoch (inclusive).
    public let notBefore: Int64
    /// The end of the validity window, in milliseconds since the epoch (inclusive).
    public let notAfter: Int64
    /// The dotted OIDs of every extension, in certificate order.
    public let extensionOIDs: [String]
    /// The dotted OIDs of the extensions marked critical, in certificate order.
    public let criticalExtensionOIDs: [String]
    /// The certificate's version: 1 (no extensions at all), 2 or 3.
    public let version: Int
    /// Whether basicConstraints says `cA: TRUE`.
    public let isCA: Bool
    /// basicConstraints' pathLenConstraint, when present.
    public let pathLengthConstraint: Int?
    /// Whether the key may sign certificates: no keyUsage extension, or one with `keyCertSign` (RFC 5280
    /// §4.2.1.3: a CA whose keyUsage lacks it may not issue).
    public let mayIssueCertificates: Bool
    /// Whether a critical extension is one libcrypto does not understand. libcrypto counts as
    /// understood several extensions a verifier may not process (extendedKeyUsage, subjectAltName,
    /// certificatePolicies…); a verifier with its own list reads `criticalExtensionOIDs` instead.
    public let hasUnhandledCriticalExtension: Bool
    /// Whether an extension is malformed or repeated.
    public let hasInvalidExtensions: Bool
    /// The hash of the certificate's signature when it is ecdsa-with-SHA256 or -SHA384, else nil.
    public let signatureDigest: DigestAlgorithm?
    private let keyResult: Result<ECPublicKey, CryptoError>

    /// Takes ownership of `x509` and decodes its fields.
    private init(taking x509: OpaquePointer, der: [UInt8]) throws(CryptoError) {
        self.x509 = x509
        self.derRepresentation = der
        guard let subject = X509CertificateFields.nameDER(X509_get_subject_name(x509)),
            let issuer = X509CertificateFields.nameDER(X509_get_issuer_name(x509)),
            let notBefore = X509CertificateFields.milliseconds(X509_get0_notBefore(x509)),
            let notAfter = X509CertificateFields.milliseconds(X509_get0_notAfter(x509))
        else {
            // deinit does not run for a partially initialised class; free here.
            X509_free(x509)
            throw CryptoError.openSSL(
                .invalidEncoding, "the certificate's names or validity cannot be read")
        }
        self.subjectDER = subject
        self.issuerDER = issuer
        self.subjectSummary = X509CertificateFields.summary(X509_get_subject_name(x509))
        self.issuerSummary = X509CertificateFields.summary(X509_get_issuer_name(x509))
        self.notBefore = notBefore
        self.notAfter = notAfter
        (self.extensionOIDs, self.criticalExtensionOIDs) = X509CertificateFields.extensionOIDs(x509)
        self.version = Int(X509_get_version(x509)) + 1
        let flags = X509_get_extension_flags(x509)
        self.isCA = flags & ledger_EXFLAG_CA() != 0
        let pathLength = X509_get_pathlen(x509)
        self.pathLengthConstraint = pathLength >= 0 ? Int(pathLength) : nil
        self.mayIssueCertificates = X509_get_key_usage(x509) & ledger_KU_KEY_CERT_SIGN() != 0
        self.hasUnhandledCriticalExtension = flags & ledger_EXFLAG_CRITICAL() != 0
        self.hasInvalidExtensions = flags & ledger_EXFLAG_INVALID() != 0
        switch X509_get_signature_nid(x509) {
        case NID_ecdsa_with_SHA256: self.signatureDigest = .sha256
        case NID_ecdsa_with_SHA384: self.signatureDigest = .sha384
        default: self.signatureDigest = nil
        }
        if let key = X509_get_pubkey(x509) {
            self.keyResult = Result { () throws(CryptoError) in try ECPublicKey(taking: key) }
        } else {
            self.keyResult = .failure(
                .openSSL(.unsupportedKey, "the certificate's public key cannot be read"))
        }
        OpenSSLErrorQueue.clear()
    }

    deinit { X509_free(x509) }

    /// Parses a DER certificate; the bytes must hold exactly one certificate.
    public convenience init(derRepresentation der: [UInt8]) throws(CryptoError) {
        let decoded = OpenSSLCoding.decodeDER(
            der, free: { X509_free($0) },
            decode: { cursor, length in
                d2i_X509(nil, cursor, length)
            })
        guard let decoded else {
            throw CryptoError.openSSL(.invalidEncoding, "the bytes are not a DER X.509 certificate")
        }
        try self.init(taking: decoded, der: der)
    }

    /// Parses the first PEM `CERTIFICATE` block of `pem`.
    public convenience init(pemRepresentation pem: String) throws(CryptoError) {
        let decoded = OpenSSLCoding.withReadBIO(pem) { bio in PEM_read_bio_X509(bio, nil, nil, nil) }
        guard let decoded,
            let der = OpenSSLCoding.encodeDER({ cursor in i2d_X509(decoded, cursor) })
        else {
            if let decoded { X509_free(decoded) }
            throw CryptoError.openSSL(.invalidEncoding, "the text holds no PEM CERTIFICATE block")
        }
        try self.init(taking: decoded, der: der)
    }

    /// Parses a certificate file's contents: PEM when it holds `-----BEGIN`, otherwise DER. Of a PEM file with
    /// several certificates, the first; ``certificates(fileContents:)`` reads them all.
    public convenience init(fileContents bytes: [UInt8]) throws(CryptoError) {
        if Self.isPEM(bytes) {
            try self.init(pemRepresentation: String(decoding: bytes, as: UTF8.self))
        } else {
            try self.init(derRepresentation: bytes)
        }
    }

    /// Every certificate of a file: each `CERTIFICATE` block of a PEM file (a bundle), in order, or the one
    /// certificate of a DER file. Throws when a PEM file holds no certificate, or a block does not parse.
    public static func certificates(fileContents bytes: [UInt8]) throws(CryptoError) -> [X509Certificate] {
        guard isPEM(bytes) else { return [try X509Certificate(derRepresentation: bytes)] }
        let text = String(decoding: bytes, as: UTF8.self)
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var certificates: [X509Certificate] = []
        var rest = text[...]
        while let start = rest.firstRange(of: begin) {
            guard let stop = rest[start.upperBound...].firstRange(of: end) else {
                throw CryptoError(.invalidEncoding, "PEM CERTIFICATE block \(certificates.count + 1) has no END line")
            }
            let block = String(rest[start.lowerBound..<stop.upperBound])
            do throws(CryptoError) {
                certificates.append(try X509Certificate(pemRepresentation: block))
            } catch {
                throw CryptoError(
                    .invalidEncoding, "PEM CERTIFICATE block \(certificates.count + 1): \(error.message)")
            }
            rest = rest[stop.upperBound...]
        }
        guard !certificates.isEmpty else {
            throw CryptoError.openSSL(.invalidEncoding, "the text holds no PEM CERTIFICATE block")
        }
        return certificates
    }

    /// Whether a file's bytes are PEM text (they hold `-----BEGIN`).
    static func isPEM(_ bytes: [UInt8]) -> Bool {
        let marker = Array("-----BEGIN".utf8)
        return bytes.count >= marker.count
            && (0...(bytes.count - marker.count)).contains { start in
                bytes[start..<(start + marker.count)].elementsEqual(marker)
            }
    }

    /// The PEM `CERTIFICATE` block.
    public var pemRepresentation: String {
        OpenSSLCoding.writingPEM { bio in PEM_write_bio_X509(bio, x509) } ?? ""
    }

    /// The subject public key; throws unless it is an EC key on P-256 or P-384.
    public var publicKey: ECPublicKey {
        get throws(CryptoError) { try keyResult.get() }
    }

    /// Whether the certificate carries an extension with exactly this dotted OID.
    public func hasExtension(oid: String) -> Bool { extensionOIDs.contains(oid) }

    /// Whether `notBefore ≤ time ≤ notAfter` (milliseconds since the epoch).
    public func isValid(at time: Int64) -> Bool { notBefore <= time && time <= notAfter }

    /// Whether the certificate's signature is an ECDSA (SHA-256 or SHA-384) signature by `issuerKey`.
    /// Any other signature algorithm is refused.
    public func isSigned(by issuerKey: ECPublicKey) -> Bool {
        guard signatureDigest != nil else { return false }
        let result = X509_verify(x509, issuerKey.pkey)
        if result != 1 { OpenSSLErrorQueue.clear() }
        return result == 1
    }

    /// The SHA-256 of the DER bytes.
    public var fingerprintSHA256: [UInt8] { SHA256.hash(derRepresentation) }

    /// The SHA-256 fingerprint as upper-case hex pairs joined by colons (`63:34:3A:…`).
    public var fingerprintDescription: String {
        Hex.encode(fingerprintSHA256).uppercased().chunked(2).joined(separator: ":")
    }

    public var description: String { "certificate \(subjectSummary)" }

    public static func == (lhs: X509Certificate, rhs: X509Certificate) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(derRepresentation) }
}

extension String {
    fileprivate func chunked(_ size: Int) -> [String] {
        var out: [String] = []
        var current = ""
        for character in self {
            current.append(character)
            if current.count == size {
                out.append(current)
                current = ""
            }
        }
        if !current.isEmpty { out.append(current) }
        return out
    }
}
