import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCrypto
import LedgerJSON

/// Signs a JSON payload into a compact JWS (`base64url(header).base64url(payload).base64url(signature)`),
/// as the App Store does: ES256 with the certificate chain in the header's `x5c`.
///
/// The simulator signs every transaction, renewal info and notification through this protocol, so the
/// signing key and its certificates stay outside the simulation model.
public protocol PayloadSigner: Sendable {
    /// The compact JWS of a payload already serialized as JSON.
    func sign(payloadBytes: [UInt8]) throws(SimulationError) -> String
}

extension PayloadSigner {
    /// The compact JWS of `payload`, serialized compactly with its keys in order.
    public func sign(_ payload: JSONValue) throws(SimulationError) -> String {
        try sign(payloadBytes: payload.serializedBytes())
    }
}

/// The simulator's signer: a test PKI shaped like Apple's (root → WWDR-like intermediate → App Store leaf),
/// derived from the seed, signing with RFC 6979 nonces so one seed always gives the same bytes.
public struct SimulationSigner: PayloadSigner {
    /// The PKI (its root is the trust anchor to configure with `--trust-root`).
    public let pki: DeterministicApplePKI
    private let signer: JWSSigner

    /// Derives the PKI of a simulation seed.
    public init(seed: UInt64) throws(SimulationError) {
        var material = Array("ledger simulate pki".utf8)
        for shift in stride(from: 0, to: 64, by: 8) {
            material.append(UInt8(truncatingIfNeeded: seed >> UInt64(shift)))
        }
        do {
            self.pki = try DeterministicApplePKI(seed: material)
            self.signer = try pki.signer()
        } catch {
            throw SimulationError(.signing, "could not create the simulation's test PKI", cause: error)
        }
    }

    /// The root certificate, DER: what `trust-root.der` holds.
    public var rootCertificateDER: [UInt8] { pki.rootDER }

    /// The compact JWS of the payload bytes, signed by the leaf.
    public func sign(payloadBytes: [UInt8]) throws(SimulationError) -> String {
        do {
            return try signer.sign(payloadBytes: payloadBytes)
        } catch {
            throw SimulationError(.signing, "could not sign a payload", cause: error)
        }
    }
}

extension SimulationSigner {
    /// A verifier that accepts what this signer signs for `config`, configured as `ledger ingest` is for the
    /// simulation's output: this signer's root, the bundle id and environment, and the App Apple ID in production.
    public func verifier(for config: SimulationConfig) throws(VerificationError) -> SignedDataVerifier {
        try SignedDataVerifier(
            configuration: VerifierConfiguration(
                rootCertificates: [rootCertificateDER], bundleId: config.bundleId,
                appAppleId: config.environment == .production ? config.appAppleId : nil,
                environment: config.environment))
    }
}
