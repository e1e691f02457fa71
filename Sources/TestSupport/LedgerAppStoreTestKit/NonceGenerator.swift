import LedgerCrypto

/// RFC 6979 section 3.2: the HMAC-DRBG that yields the nonce candidates.
struct NonceGenerator {
    let digest: DigestAlgorithm
    var k: [UInt8]
    var v: [UInt8]
    var first = true

    init(digest: DigestAlgorithm, key: [UInt8], message: [UInt8]) {
        self.digest = digest
        let size = digest.byteCount
        v = [UInt8](repeating: 1, count: size)
        k = [UInt8](repeating: 0, count: size)
        k = HMAC.authenticate(v + [0x00] + key + message, key: k, digest: digest)
        v = HMAC.authenticate(v, key: k, digest: digest)
        k = HMAC.authenticate(v + [0x01] + key + message, key: k, digest: digest)
        v = HMAC.authenticate(v, key: k, digest: digest)
    }

    /// The next candidate of `byteCount` bytes.
    mutating func next(byteCount: Int) -> [UInt8] {
        if !first {
            k = HMAC.authenticate(v + [0x00], key: k, digest: digest)
            v = HMAC.authenticate(v, key: k, digest: digest)
        }
        first = false
        var t: [UInt8] = []
        while t.count < byteCount {
            v = HMAC.authenticate(v, key: k, digest: digest)
            t += v
        }
        return t
    }
}
