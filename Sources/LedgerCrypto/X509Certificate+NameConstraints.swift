import CCrypto

extension X509Certificate {
    /// The dotted OID of the nameConstraints extension.
    public static let nameConstraintsOID = "2.5.29.30"

    /// Whether this certificate carries a nameConstraints extension.
    public var hasNameConstraints: Bool { hasExtension(oid: Self.nameConstraintsOID) }

    /// Whether the names of `certificate` — its subject (and any emailAddress in it) and its
    /// subjectAltName entries — lie within this certificate's nameConstraints (RFC 5280 §4.2.1.10),
    /// as libcrypto's `NAME_CONSTRAINTS_check` judges them.
    ///
    /// True when this certificate has no nameConstraints. False when they are violated, malformed or
    /// repeated, or constrain a name form libcrypto cannot check: a constraint that cannot be
    /// evaluated does not let a certificate through.
    public func nameConstraintsPermit(_ certificate: X509Certificate) -> Bool {
        var found: Int32 = 0
        guard let decoded = X509_get_ext_d2i(x509, NID_name_constraints, &found, nil) else {
            OpenSSLErrorQueue.clear()
            // -1: no such extension; -2: repeated; otherwise present but malformed.
            return found == -1
        }
        let constraints = decoded.assumingMemoryBound(to: NAME_CONSTRAINTS.self)
        defer { NAME_CONSTRAINTS_free(constraints) }
        // NAME_CONSTRAINTS_check reads the subjectAltName libcrypto cached when the certificate was
        // parsed (X509_get_extension_flags in init), so it only reads `certificate`.
        let result = NAME_CONSTRAINTS_check(certificate.x509, constraints)
        OpenSSLErrorQueue.clear()
        return result == X509_V_OK
    }
}
