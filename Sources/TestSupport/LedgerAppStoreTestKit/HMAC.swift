import LedgerCrypto

/// HMAC (RFC 2104) over the ledger's digests.
enum HMAC {
    static func authenticate(_ message: [UInt8], key: [UInt8], digest: DigestAlgorithm) -> [UInt8] {
        let block = digest == .sha256 ? 64 : 128
        var padded = key.count > block ? digest.hash(key) : key
        padded += [UInt8](repeating: 0, count: block - padded.count)
        let inner = digest.hash(padded.map { $0 ^ 0x36 } + message)
        return digest.hash(padded.map { $0 ^ 0x5C } + inner)
    }
}
