import CCrypto

extension CertificateBuilder {
    /// Adds basicConstraints, keyUsage, key identifiers and the NULL-valued marker extensions.
    func addExtensions(_ x509: OpaquePointer, issuer: X509Certificate?) throws(CryptoError) {
        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.x509 ?? x509, x509, nil, nil, 0)
        var basic = isCA ? "critical,CA:TRUE" : "critical,CA:FALSE"
        if isCA, let pathLengthConstraint { basic += ",pathlen:\(pathLengthConstraint)" }
        try add(x509, &context, NID_basic_constraints, basic)
        if let keyUsage { try add(x509, &context, NID_key_usage, keyUsage.configurationValue) }
        if includeKeyIdentifiers {
            try add(x509, &context, NID_subject_key_identifier, "hash")
            if let issuer, X509_get_ext_by_NID(issuer.x509, NID_subject_key_identifier, -1) >= 0 {
                try add(x509, &context, NID_authority_key_identifier, "keyid:always")
            }
        }
        for oid in markerExtensionOIDs { try addMarker(x509, oid: oid) }
    }

    private func add(
        _ x509: OpaquePointer, _ context: inout X509V3_CTX, _ nid: Int32, _ value: String
    )
        throws(CryptoError)
    {
        guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
            throw CryptoError.openSSL(.libraryFailure, "could not create the extension \(value)")
        }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(x509, ext, -1) == 1 else {
            throw CryptoError.openSSL(.libraryFailure, "could not add the extension \(value)")
        }
    }

    /// A non-critical extension with the given OID and the DER value NULL (`05 00`).
    private func addMarker(_ x509: OpaquePointer, oid: String) throws(CryptoError) {
        guard let object = OBJ_txt2obj(oid, 1) else {
            throw CryptoError.openSSL(.invalidArgument, "\(oid) is not a dotted OID")
        }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else {
            throw CryptoError.openSSL(.libraryFailure, "could not allocate an extension value")
        }
        defer { ASN1_OCTET_STRING_free(value) }
        let null: [UInt8] = [0x05, 0x00]
        guard ASN1_OCTET_STRING_set(value, null, 2) == 1,
            let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, value)
        else {
            throw CryptoError.openSSL(.libraryFailure, "could not create the extension \(oid)")
        }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(x509, ext, -1) == 1 else {
            throw CryptoError.openSSL(.libraryFailure, "could not add the extension \(oid)")
        }
    }
}
