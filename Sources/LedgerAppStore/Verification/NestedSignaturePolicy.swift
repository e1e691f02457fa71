/// Whether the ES256 signatures of `signedTransactionInfo` and `signedRenewalInfo` nested in a
/// verified notification are verified again.
///
/// Either way the nested JWS are decoded, their chain is validated at their own `signedDate`, and
/// their app and environment are checked.
public enum NestedSignaturePolicy: String, Sendable, CaseIterable {
    /// Verify every nested signature, as Apple's `verifyAndDecodeTransaction` and
    /// `verifyAndDecodeRenewalInfo` would. The default.
    case verify
    /// Skip the nested ECDSA verification when the nested JWS carries exactly the envelope's header
    /// (the same leaf and chain): the envelope's signature, already verified, covers the nested JWS
    /// byte for byte, so only the App Store could have written them. A nested JWS with any other
    /// header is still verified. Saves two of a notification's three ECDSA verifications.
    case coveredByEnvelope
}
