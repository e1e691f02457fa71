import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Verifies and decodes data signed by the App Store — notifications, transactions, renewal info —
/// exactly as Apple's `SignedDataVerifier` does, on libcrypto, with Apple's status names.
///
/// Steps: split the compact JWS and decode header and payload (`INVALID_JWT_FORMAT`); in the Xcode
/// and LocalTesting environments stop there, as Apple does; require `alg` ES256 and an `x5c`
/// (`INVALID_JWT_FORMAT`) of exactly three certificates (`INVALID_CHAIN_LENGTH`); validate the chain
/// at the payload's `signedDate`, or now when it has none (`ChainVerifier`; `VERIFICATION_FAILURE`);
/// require a P-256 leaf key (`VERIFICATION_FAILURE`) and verify the raw R‖S ES256 signature (a bad
/// signature is `INVALID_JWT_FORMAT`, as in Apple's Swift library); then check the app and the
/// environment (`INVALID_APP_IDENTIFIER`, `INVALID_ENVIRONMENT`).
///
/// Thread-safe: the only shared state is the chain cache, behind a mutex.
public final class SignedDataVerifier: Sendable {
    /// What this verifier trusts and expects.
    public let configuration: VerifierConfiguration
    private let chainVerifier: ChainVerifier?
    private let headers = Mutex(BoundedCache<SigningHeader>(capacity: 64))
    private let now: @Sendable () -> Int64

    /// Creates a verifier. Trust roots are required unless the environment skips signatures; an
    /// empty or unparsable root list is `INVALID_CERTIFICATE`.
    ///
    /// - Parameter now: the current time in milliseconds, used when a payload has no `signedDate`.
    public init(
        configuration: VerifierConfiguration,
        now: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds
    ) throws(VerificationError) {
        self.configuration = configuration
        self.now = now
        if configuration.skipsSignatureVerification && configuration.rootCertificates.isEmpty {
            self.chainVerifier = nil
        } else {
            self.chainVerifier = try ChainVerifier(rootCertificates: configuration.rootCertificates)
        }
    }

    /// How the chain cache has been used (nil when signatures are skipped and no root is set).
    public var chainCacheStatistics: ChainCache.Statistics? { chainVerifier?.cacheStatistics }

    /// Verifies a JWS's signature and chain and returns its payload, without the app and
    /// environment checks (the `verify…` methods add those).
    public func verifiedPayload(of signedData: String) throws(VerificationError) -> JSONObject {
        try verify(CompactJWS(signedData)).payload
    }

    /// Decodes a payload into its model (``VerifiedPayload``) as Apple's libraries do, to judge its types alone.
    typealias PayloadModel = (JSONObject) throws(VerificationError) -> Void

    /// The ``PayloadModel`` of `Model`: a field of the wrong type is `INVALID_JWT_FORMAT`; one the ledger needs but
    /// Apple leaves optional may be missing (the ledger asks for it once the data is verified).
    static func model<Model: VerifiedPayload>(_: Model.Type) -> PayloadModel {
        { payload throws(VerificationError) in
            _ = try Model(verified: .object(payload), requiringLedgerFields: false)
        }
    }

    /// Verifies `jws` (header rules, chain, leaf key, ES256 signature) and returns its payload, with the JWS's
    /// bytes and their SHA-256 when its signature was checked (the digest of the signing input is most of it:
    /// the evidence is not hashed twice). Every JWS is verified whole, a nested one too, as Apple's
    /// `verifyAndDecodeTransaction` and `verifyAndDecodeRenewalInfo` verify it: an envelope's signature covering
    /// a nested JWS's bytes does not make the nested signature valid.
    ///
    /// `model`, when given, decodes the payload into its model first, as Apple's libraries do before they look at
    /// the chain: a field of the wrong type is `INVALID_JWT_FORMAT` whatever else is wrong with the JWS.
    func verify(_ jws: CompactJWS, as model: PayloadModel? = nil)
        throws(VerificationError) -> (payload: JSONObject, hashed: HashedBytes?)
    {
        var known: KnownHeader? = nil
        return try verify(jws, as: model, known: &known)
    }

    /// ``verify(_:as:)``, taking the header from `known` when `jws` carries its exact bytes (the JWSs nested in a
    /// notification carry the envelope's), and leaving in `known` the header of `jws` once it is checked.
    func verify(_ jws: CompactJWS, as model: PayloadModel?, known: inout KnownHeader?)
        throws(VerificationError) -> (payload: JSONObject, hashed: HashedBytes?)
    {
        let signedDate = try SignedFields.signedDate(of: jws.payload)
        if let model { try model(jws.payload) }
        if configuration.skipsSignatureVerification {
            try SigningHeader.checkTypes(jws.decodedHeader())
            return (jws.payload, nil)
        }
        guard let chainVerifier else {
            throw VerificationError(
                .invalidCertificate, "no trust root is configured; pass --trust-root FILE")
        }
        let header: SigningHeader
        if let same = known?.header(for: jws.headerSegment) {
            header = same
        } else {
            header = try signingHeader(of: jws)
            known = KnownHeader(segment: jws.headerSegment, header: header)
        }
        let time = signedDate ?? now()
        let key = try chainVerifier.validatedLeafKey(
            leaf: header.leaf, intermediate: header.intermediate, key: header.chainKey, at: time)
        guard key.curve == .p256 else {
            throw VerificationError(
                .verificationFailure, "the leaf certificate's key is \(key.curve); ES256 needs a P-256 key")
        }
        var hasher = header.signingPrefix
        hasher.update(jws.signingInput[jws.headerSegment.endIndex...])
        var signingDigest = hasher
        guard jws.signature.count == 64,
            let signature = try? ECDSASignature(rawRepresentation: jws.signature),
            key.isValidSignature(signature, forDigest: signingDigest.finalize())
        else {
            // Apple's Swift library reports a signature that does not verify as INVALID_JWT_FORMAT.
            throw VerificationError(
                .invalidJWTFormat,
                "the JWS signature does not verify with the leaf certificate's key; the data was altered or not"
                    + " signed by the App Store")
        }
        return (jws.payload, HashedBytes(jws.bytes, continuing: hasher, afterPrefix: jws.signingInput.count))
    }

    /// The checked header of `jws`, from the cache when this exact header was seen before (every JWS
    /// from one signer carries the same header).
    private func signingHeader(of jws: CompactJWS) throws(VerificationError) -> SigningHeader {
        let key = ByteKey(slice: jws.headerSegment)
        if let cached = headers.withLock({ $0[key] }) { return cached }
        var header = try SigningHeader(jws.decodedHeader())
        header.signingPrefix.update(jws.headerSegment)
        headers.withLock { $0.insert(header, for: key) }
        return header
    }

    /// Verifies and decodes a `signedTransactionInfo`: signature and chain, then the bundle
    /// (`INVALID_APP_IDENTIFIER`) and the environment (`INVALID_ENVIRONMENT`).
    public func verifyTransaction(_ signedTransaction: String) throws(VerificationError) -> JSONValue {
        var known: KnownHeader? = nil
        return try verifyTransaction(signedTransaction, as: Self.model(TransactionPayload.self), known: &known)
    }

    /// ``verifyTransaction(_:)``; nested in a notification (`model` nil), its model is decoded with the
    /// notification's, as Apple's `verifyAndDecodeNotification` leaves it a string, and its header may be the
    /// envelope's (`known`).
    func verifyTransaction(_ signedTransaction: String, as model: PayloadModel?, known: inout KnownHeader?)
        throws(VerificationError) -> JSONValue
    {
        let payload = try verify(CompactJWS(signedTransaction), as: model, known: &known).payload
        let bundleId = try SignedFields.string(payload, "bundleId")
        if let expected = configuration.bundleId, bundleId != expected {
            throw VerificationError(
                .invalidAppIdentifier,
                "the transaction is for bundle \(SignedFields.quoted(bundleId)), not the configured \"\(expected)\""
            )
        }
        try checkEnvironment(try SignedFields.string(payload, "environment"), of: "transaction")
        return .object(payload)
    }

    /// Verifies and decodes a `signedRenewalInfo`: signature and chain, then the environment.
    public func verifyRenewalInfo(_ signedRenewalInfo: String) throws(VerificationError) -> JSONValue {
        var known: KnownHeader? = nil
        return try verifyRenewalInfo(signedRenewalInfo, as: Self.model(RenewalInfoPayload.self), known: &known)
    }

    /// ``verifyRenewalInfo(_:)``; nested in a notification (`model` nil), its model is decoded with the
    /// notification's, and its header may be the envelope's (`known`).
    func verifyRenewalInfo(_ signedRenewalInfo: String, as model: PayloadModel?, known: inout KnownHeader?)
        throws(VerificationError) -> JSONValue
    {
        let payload = try verify(CompactJWS(signedRenewalInfo), as: model, known: &known).payload
        try checkEnvironment(try SignedFields.string(payload, "environment"), of: "renewal info")
        return .object(payload)
    }

    func checkEnvironment(_ environment: String?, of subject: String) throws(VerificationError) {
        let expected = configuration.environment.rawValue
        guard environment == expected else {
            throw VerificationError(
                .invalidEnvironment,
                "the \(subject) comes from the \(SignedFields.quoted(environment)) environment, not the configured"
                    + " \"\(expected)\"; sandbox and production data never mix")
        }
    }
}
