import CCrypto

/// Builds and signs X.509 v3 certificates with libcrypto, to create test PKIs at run time (a
/// self-signed root, CA intermediates, leaves) with chosen keys, validity, extensions and hash.
public struct CertificateBuilder: Sendable {
    /// The key-usage bits the builder can set (the extension is marked critical).
    public struct KeyUsage: OptionSet, Hashable, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// digitalSignature (leaf signing keys).
        public static let digitalSignature = KeyUsage(rawValue: 1)
        /// keyCertSign (CAs).
        public static let keyCertSign = KeyUsage(rawValue: 2)
        /// cRLSign (CAs).
        public static let cRLSign = KeyUsage(rawValue: 4)

        var configurationValue: String {
            var names = ["critical"]
            if contains(.digitalSignature) { names.append("digitalSignature") }
            if contains(.keyCertSign) { names.append("keyCertSign") }
            if contains(.cRLSign) { names.append("cRLSign") }
            return names.joined(separator: ",")
        }
    }

    /// The subject name.
    public var subject: DistinguishedName
    /// The key the certificate certifies.
    public var publicKey: ECPublicKey
    /// The start of validity, milliseconds since the epoch (whole seconds are kept).
    public var notBefore: Int64
    /// The end of validity, milliseconds since the epoch (whole seconds are kept).
    public var notAfter: Int64
    /// The serial number (positive).
    public var serialNumber: UInt64
    /// Whether to add a critical basicConstraints `cA: TRUE` (false: `cA: FALSE`).
    public var isCA = false
    /// basicConstraints pathLenConstraint, for CAs.
    public var pathLengthConstraint: Int? = nil
    /// The keyUsage extension; nil omits it.
    public var keyUsage: KeyUsage? = nil
    /// Dotted OIDs of non-critical extensions whose value is ASN.1 NULL (`05 00`), as Apple marks
    /// its receipt-signing leaves (1.2.840.113635.100.6.11.1) and WWDR intermediates (…6.2.1).
    public var markerExtensionOIDs: [String] = []
    /// Whether to add subjectKeyIdentifier, and authorityKeyIdentifier when the issuer has one.
    public var includeKeyIdentifiers = true
    /// Further extensions in OpenSSL's configuration syntax (critical or not), added last.
    public var extensions: [Extension] = []
    /// Whether to make a version 1 certificate: no extensions at all (the ones above are ignored).
    public var isVersion1 = false

    /// Starts a certificate for `publicKey` named `subject`, valid from `notBefore` to `notAfter`.
    public init(subject: DistinguishedName, publicKey: ECPublicKey, notBefore: Int64, notAfter: Int64) {
        self.subject = subject
        self.publicKey = publicKey
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.serialNumber = UInt64.random(in: 1...UInt64(Int64.max))
    }

    /// Signs the certificate with its own key (a root): issuer = subject.
    public func selfSigned(with key: ECPrivateKey, digest: DigestAlgorithm) throws(CryptoError)
        -> X509Certificate
    {
        try build(issuer: nil, issuerKey: key, digest: digest)
    }

    /// Signs the certificate with `issuerKey`, naming `issuer`'s subject as its issuer.
    public func signed(
        by issuer: X509Certificate, key issuerKey: ECPrivateKey, digest: DigestAlgorithm
    )
        throws(CryptoError) -> X509Certificate
    {
        try build(issuer: issuer, issuerKey: issuerKey, digest: digest)
    }

    private func build(issuer: X509Certificate?, issuerKey: ECPrivateKey, digest: DigestAlgorithm)
        throws(CryptoError) -> X509Certificate
    {
        guard notBefore <= notAfter else {
            throw CryptoError(
                .invalidArgument, "a certificate's notBefore must not be after its notAfter")
        }
        guard let x509 = X509_new() else {
            throw CryptoError.openSSL(.libraryFailure, "could not allocate a certificate")
        }
        defer { X509_free(x509) }
        guard X509_set_version(x509, isVersion1 ? 0 : 2) == 1,
            ASN1_INTEGER_set_uint64(X509_get_serialNumber(x509), serialNumber) == 1,
            ASN1_TIME_adj(X509_getm_notBefore(x509), time_t(Self.seconds(notBefore)), 0, 0) != nil,
            ASN1_TIME_adj(X509_getm_notAfter(x509), time_t(Self.seconds(notAfter)), 0, 0) != nil,
            X509_set_pubkey(x509, publicKey.pkey) == 1
        else {
            throw CryptoError.openSSL(.libraryFailure, "could not set the certificate's basic fields")
        }
        try setNames(x509, issuer: issuer)
        if !isVersion1 { try addExtensions(x509, issuer: issuer) }
        guard X509_sign(x509, issuerKey.pkey, digest.evpMD) > 0 else {
            throw CryptoError.openSSL(.libraryFailure, "could not sign the certificate")
        }
        guard let der = OpenSSLCoding.encodeDER({ cursor in i2d_X509(x509, cursor) }) else {
            throw CryptoError.openSSL(.libraryFailure, "could not encode the certificate")
        }
        return try X509Certificate(derRepresentation: der)
    }

    private static func seconds(_ milliseconds: Int64) -> Int64 {
        milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
    }

    private func setNames(_ x509: OpaquePointer, issuer: X509Certificate?) throws(CryptoError) {
        guard let name = X509_NAME_new() else {
            throw CryptoError.openSSL(.libraryFailure, "could not allocate a name")
        }
        defer { X509_NAME_free(name) }
        for attribute in subject.attributes {
            let value = Array(attribute.value.utf8)
            guard
                X509_NAME_add_entry_by_txt(
                    name, attribute.type, MBSTRING_UTF8, value, Int32(value.count), -1, 0) == 1
            else {
                throw CryptoError.openSSL(
                    .invalidArgument, "the name attribute \(attribute.type) is not valid")
            }
        }
        let issuerName = issuer.map { X509_get_subject_name($0.x509) } ?? name
        guard X509_set_subject_name(x509, name) == 1, X509_set_issuer_name(x509, issuerName) == 1 else {
            throw CryptoError.openSSL(.libraryFailure, "could not set the certificate's names")
        }
    }
}
