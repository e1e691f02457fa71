import LedgerCrypto

extension ChainVerifier {
    /// The extensions a certificate may mark critical: basicConstraints (2.5.29.19), keyUsage
    /// (2.5.29.15) and nameConstraints (2.5.29.30), the ones the verifier processes (as
    /// swift-certificates' RFC 5280 policy does). Any other critical extension fails the chain.
    public static let handledCriticalExtensionOIDs: Set<String> = [
        "2.5.29.19", "2.5.29.15", X509Certificate.nameConstraintsOID,
    ]

    /// The leaf's and the intermediate's own extension rules: the intermediate a CA that may sign
    /// certificates, with Apple's WWDR OID, the leaf with Apple's receipt-signing OID, neither with a malformed or an unhandled
    /// critical extension.
    static func checkExtensions(leaf: X509Certificate, intermediate: X509Certificate)
        throws(VerificationError)
    {
        guard intermediate.isCA else {
            throw failure(
                "the intermediate certificate x5c[1] is not a CA (basicConstraints cA is not true)")
        }
        guard intermediate.mayIssueCertificates else {
            throw failure(
                "the intermediate certificate x5c[1] may not sign certificates (its keyUsage lacks keyCertSign)")
        }
        guard intermediate.hasExtension(oid: wwdrIntermediateOID) else {
            throw failure(
                "the intermediate certificate lacks Apple's WWDR extension \(wwdrIntermediateOID); it is not an"
                    + " App Store signing chain")
        }
        guard leaf.hasExtension(oid: receiptSigningOID) else {
            throw failure(
                "the leaf certificate lacks Apple's receipt-signing extension \(receiptSigningOID); it is not an"
                    + " App Store signing certificate")
        }
        for (certificate, name) in [(leaf, "leaf certificate"), (intermediate, "intermediate certificate")] {
            if let problem = extensionProblem(certificate, name: name) { throw failure(problem) }
        }
    }

    /// Why a trust root that issued `intermediate` cannot anchor this chain, or nil when it can: a root
    /// that is not a CA (every issuer in the chain must be one, the root too, as in swift-certificates'
    /// RFC 5280 policy; a version 1 certificate, which has no extensions to say so, may issue), a malformed
    /// or unhandled critical extension on the root, or names of the intermediate or the leaf outside the
    /// root's nameConstraints.
    static func problem(root: X509Certificate, intermediate: X509Certificate, leaf: X509Certificate)
        -> String?
    {
        guard root.isCA || root.version == 1 else {
            return "the trust root \(root.subjectSummary) is not a CA (basicConstraints cA is not true); it cannot"
                + " issue the intermediate"
        }
        guard root.mayIssueCertificates else {
            return "the trust root \(root.subjectSummary) may not sign certificates (its keyUsage lacks keyCertSign)"
        }
        if let problem = extensionProblem(root, name: "trust root \(root.subjectSummary)") { return problem }
        for (certificate, name) in [(intermediate, "intermediate"), (leaf, "leaf")]
        where !root.nameConstraintsPermit(certificate) {
            return "the \(name) certificate's names (\(certificate.subjectSummary)) violate the nameConstraints"
                + " of the trust root \(root.subjectSummary)"
        }
        return nil
    }

    /// Why `certificate`'s extensions fail the chain (malformed or repeated, or critical and not
    /// handled), or nil.
    private static func extensionProblem(_ certificate: X509Certificate, name: String) -> String? {
        guard !certificate.hasInvalidExtensions else { return "the \(name) has a malformed or repeated extension" }
        let unhandled = certificate.criticalExtensionOIDs.filter { !handledCriticalExtensionOIDs.contains($0) }
        guard unhandled.isEmpty else {
            return "the \(name) has critical extensions the verifier does not process"
                + " (\(unhandled.joined(separator: ", "))); RFC 5280 requires rejecting it"
        }
        return nil
    }
}
