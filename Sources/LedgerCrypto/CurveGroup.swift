import CCrypto

/// ECDSA with a caller-chosen nonce, on libcrypto's group arithmetic: what RFC 6979 signing needs.
///
/// `ECPrivateKey` offers only libcrypto 3.0's randomised signing (deterministic nonces arrived in 3.2), and
/// deriving k·G through a key round trip costs milliseconds in 3.0's decoders; `EC_POINT_mul` and `BN_mod_*`
/// take tens of microseconds. Every object is freed beside its creation.
///
/// `@unchecked Sendable`: the group is never modified after creation, and libcrypto allows concurrent
/// point multiplications on a shared constant group (each call brings its own point and numbers).
public final class CurveGroup: @unchecked Sendable {
    /// The curve.
    public let curve: ECCurve
    private let group: OpaquePointer

    /// Loads the named group of `curve`.
    public init(curve: ECCurve) throws(CryptoError) {
        let nid = curve == .p256 ? NID_X9_62_prime256v1 : NID_secp384r1
        guard let group = EC_GROUP_new_by_curve_name(nid) else {
            ERR_clear_error()
            throw CryptoError(.libraryFailure, "could not load the \(curve) group")
        }
        self.curve = curve
        self.group = group
    }

    deinit { EC_GROUP_free(group) }

    /// The ECDSA signature (r, s) of the message scalar `z` with private scalar `d` and nonce `k` (all
    /// big-endian, below the group order): r = x(k·G) mod n, s = k⁻¹·(z + r·d) mod n. Nil when r or s is
    /// zero, which asks for the next nonce.
    public func sign(z: [UInt8], k: [UInt8], d: [UInt8]) throws(CryptoError) -> (r: [UInt8], s: [UInt8])? {
        guard let context = BN_CTX_new() else { throw CryptoError(.libraryFailure, "could not allocate a BN_CTX") }
        defer { BN_CTX_free(context) }
        BN_CTX_start(context)
        defer { BN_CTX_end(context) }
        guard let order = EC_GROUP_get0_order(group), let x = BN_CTX_get(context), let r = BN_CTX_get(context),
            let s = BN_CTX_get(context), let kInverse = BN_CTX_get(context), let bnK = BN_CTX_get(context),
            let bnD = BN_CTX_get(context), let bnZ = BN_CTX_get(context),
            BN_bin2bn(k, Int32(k.count), bnK) != nil, BN_bin2bn(d, Int32(d.count), bnD) != nil,
            BN_bin2bn(z, Int32(z.count), bnZ) != nil
        else {
            throw CryptoError(.libraryFailure, "could not load the numbers of a \(curve) signature")
        }
        defer {
            BN_clear(bnK)
            BN_clear(bnD)
            BN_clear(kInverse)
        }
        guard let point = EC_POINT_new(group) else {
            throw CryptoError(.libraryFailure, "could not allocate a \(curve) point")
        }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(group, point, bnK, nil, nil, context) == 1,
            EC_POINT_get_affine_coordinates(group, point, x, nil, context) == 1,
            BN_nnmod(r, x, order, context) == 1,
            BN_mod_inverse(kInverse, bnK, order, context) != nil,
            BN_mod_mul(s, r, bnD, order, context) == 1,
            BN_mod_add(s, s, bnZ, order, context) == 1,
            BN_mod_mul(s, s, kInverse, order, context) == 1
        else {
            ERR_clear_error()
            throw CryptoError(.libraryFailure, "the \(curve) signature arithmetic failed")
        }
        if BN_is_zero(r) == 1 || BN_is_zero(s) == 1 { return nil }
        let size = curve.coordinateByteCount
        var rBytes = [UInt8](repeating: 0, count: size)
        var sBytes = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(r, &rBytes, Int32(size)) == Int32(size), BN_bn2binpad(s, &sBytes, Int32(size)) == Int32(size)
        else { throw CryptoError(.libraryFailure, "a signature half did not fit \(size) bytes") }
        return (rBytes, sBytes)
    }
}
