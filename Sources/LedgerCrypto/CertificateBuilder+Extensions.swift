import CCrypto

extension CertificateBuilder {
    /// An extension the builder has no property for, written in OpenSSL's `x509v3_config` syntax:
    /// `extendedKeyUsage` `codeSigning`, `subjectAltName` `DNS:example.com`, `certificatePolicies`
    /// `2.5.29.32.0`, `inhibitAnyPolicy` `0`, or a dotted OID with a raw value such as `DER:05:00`.
    public struct Extension: Hashable, Sendable {
        /// The extension's OpenSSL short or long name (`extendedKeyUsage`) or its dotted OID.
        public var name: String
        /// The value in `x509v3_config` syntax, without the `critical,` prefix.
        public var value: String
        /// Whether the extension is marked critical.
        public var isCritical: Bool
        /// The directory names `value` refers to as `dirName:SECTION`, by section name (ASCII values).
        public var directoryNames: [String: DistinguishedName]

        /// Creates an extension from its name and `x509v3_config` value.
        public init(
            _ name: String, _ value: String, isCritical: Bool,
            directoryNames: [String: DistinguishedName] = [:]
        ) {
            self.name = name
            self.value = value
            self.isCritical = isCritical
            self.directoryNames = directoryNames
        }

        /// A nameConstraints extension (critical, as RFC 5280 requires, unless told otherwise) whose
        /// permitted and excluded subtrees are directory names.
        public static func nameConstraints(
            permitted: [DistinguishedName] = [], excluded: [DistinguishedName] = [], isCritical: Bool = true
        ) -> Extension {
            var subtrees: [String] = []
            var names: [String: DistinguishedName] = [:]
            for (kind, list) in [("permitted", permitted), ("excluded", excluded)] {
                for (index, name) in list.enumerated() {
                    subtrees.append("\(kind);dirName:\(kind)_\(index)")
                    names["\(kind)_\(index)"] = name
                }
            }
            return Extension(
                "nameConstraints", subtrees.joined(separator: ","), isCritical: isCritical,
                directoryNames: names)
        }
    }

    /// Adds basicConstraints, keyUsage, key identifiers, the NULL-valued marker extensions and
    /// `extensions`.
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
        guard !extensions.isEmpty else { return }
        let configuration = try Self.configuration(
            sections: extensions.reduce(into: [:]) { $0.merge($1.directoryNames) { first, _ in first } })
        defer { NCONF_free(configuration) }
        X509V3_set_nconf(&context, configuration)
        for ext in extensions {
            let value = ext.isCritical ? "critical," + ext.value : ext.value
            guard let made = X509V3_EXT_nconf(configuration, &context, ext.name, value) else {
                throw CryptoError.openSSL(.invalidArgument, "could not create the extension \(ext.name) \(value)")
            }
            defer { X509_EXTENSION_free(made) }
            guard X509_add_ext(x509, made, -1) == 1 else {
                throw CryptoError.openSSL(.libraryFailure, "could not add the extension \(ext.name)")
            }
        }
    }

    /// An OpenSSL configuration holding each directory name as a section (`0.CN = …`, in order).
    private static func configuration(sections: [String: DistinguishedName]) throws(CryptoError)
        -> UnsafeMutablePointer<CONF>
    {
        var text = ""
        for (section, name) in sections.sorted(by: { $0.key < $1.key }) {
            text += "[\(section)]\n"
            for (index, attribute) in name.attributes.enumerated() {
                let escaped = attribute.value.map { "\\\"'#$;".contains($0) ? "\\\($0)" : String($0) }
                text += "\(index).\(attribute.type) = \(escaped.joined())\n"
            }
        }
        guard let configuration = NCONF_new(nil) else {
            throw CryptoError.openSSL(.libraryFailure, "could not allocate an OpenSSL configuration")
        }
        var errorLine = 0
        let loaded = OpenSSLCoding.withReadBIO(text) { bio in NCONF_load_bio(configuration, bio, &errorLine) }
        guard text.isEmpty || loaded == 1 else {
            NCONF_free(configuration)
            throw CryptoError.openSSL(
                .invalidArgument, "the directory names do not form an OpenSSL configuration (line \(errorLine))")
        }
        return configuration
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
