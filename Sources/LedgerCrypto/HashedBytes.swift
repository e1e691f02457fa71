/// Bytes with their SHA-256, computed once: evidence is hashed while it is verified (the signature's digest
/// covers all but its last segment), and the log stores it under that digest without hashing it again.
public struct HashedBytes: Sendable, Hashable {
    /// The bytes.
    public let bytes: [UInt8]
    /// SHA-256 of ``bytes`` (32 bytes).
    public let sha256: [UInt8]

    /// Hashes `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.sha256 = SHA256.hash(bytes)
    }

    /// Finishes a digest that `hasher` began: it has consumed exactly `bytes[..<prefixCount]`, and only the
    /// rest is hashed here.
    package init(_ bytes: [UInt8], continuing hasher: SHA256, afterPrefix prefixCount: Int) {
        var hasher = hasher
        bytes.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[prefixCount...])) }
        self.bytes = bytes
        self.sha256 = hasher.finalize()
    }
}
