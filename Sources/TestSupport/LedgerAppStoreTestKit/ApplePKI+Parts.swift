import LedgerCrypto

extension ApplePKI {
    /// Assembles a PKI from existing keys and certificates.
    init(
        rootKey: ECPrivateKey, root: X509Certificate, intermediateKey: ECPrivateKey, intermediate: X509Certificate,
        leafKey: ECPrivateKey, leaf: X509Certificate
    ) {
        self.rootKey = rootKey
        self.root = root
        self.intermediateKey = intermediateKey
        self.intermediate = intermediate
        self.leafKey = leafKey
        self.leaf = leaf
    }
}
