import CCrypto

/// The hash functions the ledger signs and verifies with.
public enum DigestAlgorithm: String, Sendable, CaseIterable {
    /// SHA-256 (ES256, ecdsa-with-SHA256).
    case sha256 = "SHA-256"
    /// SHA-384 (ecdsa-with-SHA384, as Apple's roots and intermediates use).
    case sha384 = "SHA-384"

    /// The digest size in bytes.
    public var byteCount: Int {
        switch self {
        case .sha256: return 32
        case .sha384: return 48
        }
    }

    /// The digest of some bytes.
    public func hash<C: ContiguousBytes>(_ bytes: C) -> [UInt8] {
        switch self {
        case .sha256:
            return SHA256.hash(bytes)
        case .sha384:
            var out = [UInt8](repeating: 0, count: 48)
            bytes.withUnsafeBytes { input in
                out.withUnsafeMutableBufferPointer { output in
                    let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    _ = SHA384(base, input.count, output.baseAddress)
                }
            }
            return out
        }
    }

    /// libcrypto's message digest, for signing and certificate creation.
    var evpMD: OpaquePointer? {
        switch self {
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        }
    }
}
