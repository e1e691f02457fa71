import LedgerJSON

/// Signs a JSON payload into a compact JWS (`base64url(header).base64url(payload).base64url(signature)`),
/// as the App Store does: ES256 with the certificate chain in the header's `x5c`.
///
/// The simulator signs every transaction, renewal info and notification through this protocol, so the
/// signing key and its certificates stay outside the simulation model.
public protocol PayloadSigner: Sendable {
    /// The compact JWS of `payload`.
    func sign(_ payload: JSONValue) -> String
}
