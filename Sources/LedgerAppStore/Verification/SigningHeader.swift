import LedgerCrypto
import LedgerJSON

/// What the verifier needs from a JOSE header once it has passed the header rules: the leaf and
/// intermediate certificates, DER. `x5c[2]` is never decoded: the root comes from the
/// configuration.
struct SigningHeader: Sendable {
    let leaf: [UInt8]
    let intermediate: [UInt8]
    /// The chain cache's key for this leaf and intermediate, made once with the header.
    let chainKey: ByteKey
    /// SHA-256 fed with the header segment this header was decoded from (set by the verifier's cache, which is
    /// keyed by those bytes): a JWS's signing input starts with them, and they are most of it — three
    /// certificates in base64 — so each JWS hashes only its own "." and payload.
    var signingPrefix = SHA256()

    /// The header's types alone, as Apple's libraries decode a header before anything else (also when
    /// `Xcode` and `LocalTesting` data skip the signature): `alg`, `kid`, `typ` and `cty` strings and `x5c` an
    /// array of strings when present (`INVALID_JWT_FORMAT` otherwise).
    static func checkTypes(_ header: JSONObject) throws(VerificationError) {
        for name in ["alg", "kid", "typ", "cty"] {
            guard let value = header[name], !value.isNull else { continue }
            guard value.string != nil else {
                throw VerificationError(.invalidJWTFormat, "the JWS header's \(name) is not a string")
            }
        }
        if let chain = header["x5c"], !chain.isNull,
            !(chain.array.map { $0.allSatisfy { $0.string != nil } } ?? false)
        {
            throw VerificationError(.invalidJWTFormat, "the JWS header's x5c is not an array of strings")
        }
    }

    /// Applies Apple's header rules: the header's types (``checkTypes(_:)``), a non-empty `x5c` (`INVALID_JWT_FORMAT`), `alg` ES256
    /// (`INVALID_JWT_FORMAT`), exactly three certificates (`INVALID_CHAIN_LENGTH`), the first two
    /// standard base64 (`INVALID_CERTIFICATE`).
    init(_ header: JSONObject) throws(VerificationError) {
        try Self.checkTypes(header)
        guard let chain = header["x5c"], !chain.isNull else {
            throw VerificationError(
                .invalidJWTFormat,
                "the JWS header has no x5c certificate chain; App Store data always carries one")
        }
        guard let certificates = chain.array, certificates.allSatisfy({ $0.string != nil }) else {
            throw VerificationError(.invalidJWTFormat, "the JWS header's x5c is not an array of strings")
        }
        // An empty x5c is no chain at all: Apple's Swift library answers INVALID_JWT_FORMAT (Python
        // VERIFICATION_FAILURE), as for a missing one, before it counts certificates.
        guard !certificates.isEmpty else {
            throw VerificationError(
                .invalidJWTFormat, "the JWS header's x5c is empty; App Store data always carries a certificate chain")
        }
        let algorithm = header["alg"]?.string
        guard algorithm == "ES256" else {
            throw VerificationError(
                .invalidJWTFormat,
                "the JWS algorithm is \(algorithm.map { "\"\($0)\"" } ?? "missing"); App Store data is signed with ES256"
            )
        }
        // Apple's Swift library reports a wrong x5c count as INVALID_JWT_FORMAT; Python and Java say
        // INVALID_CHAIN_LENGTH, and so does the ledger's contract, which is the more useful name.
        guard certificates.count == 3 else {
            throw VerificationError(
                .invalidChainLength,
                "the JWS header's x5c holds \(certificates.count) certificates; App Store data carries exactly 3"
                    + " (leaf, intermediate, root)")
        }
        guard let leaf = Base64.decode(certificates[0].string ?? ""),
            let intermediate = Base64.decode(certificates[1].string ?? "")
        else {
            throw VerificationError(
                .invalidCertificate, "a certificate in the JWS header's x5c is not base64")
        }
        self.leaf = leaf
        self.intermediate = intermediate
        self.chainKey = ChainCache.key(leaf: leaf, intermediate: intermediate)
    }
}
