import CCrypto

/// SHA-256 over libcrypto (hardware-accelerated where the CPU offers it).
public struct SHA256: Sendable {
    /// The digest size in bytes.
    public static let byteCount = 32

    private var context = SHA256_CTX()

    /// Starts a new digest.
    public init() {
        SHA256_Init(&context)
    }

    /// Feeds bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        SHA256_Update(&context, base, bytes.count)
    }

    /// Feeds bytes.
    public mutating func update<C: ContiguousBytes>(_ bytes: C) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Finishes and writes the 32-byte digest at `target` (no allocation: for hashes computed per record).
    public mutating func finalize(into target: UnsafeMutableRawPointer) {
        _ = SHA256_Final(target.assumingMemoryBound(to: UInt8.self), &context)
    }

    /// Finishes and returns the 32-byte digest.
    public mutating func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBufferPointer { _ = SHA256_Final($0.baseAddress, &context) }
        return out
    }

    /// The digest of some bytes.
    public static func hash<C: ContiguousBytes>(_ bytes: C) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finalize()
    }
}
