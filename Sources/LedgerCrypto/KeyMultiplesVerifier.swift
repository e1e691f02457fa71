import CCrypto

/// ECDSA verification by one P-256 public key, with a precomputed table of the key's multiples.
///
/// Verifying computes u1·G + u2·Q. libcrypto keeps a table of multiples of the curve's generator G, but
/// multiplies the key Q from scratch every time (about 255 point doublings): most of a verification. This builds
/// the same kind of table for Q once: a copy of the curve's group whose generator is Q, precomputed with
/// `EC_GROUP_precompute_mult`. Both products are then table look-ups, about twice as fast per verification here
/// (`Scripts/bench`, ingest rows). The table (about 150 KB) and the time to build it (tens of milliseconds) pay
/// off for a key that verifies many signatures: the App Store's signing key. ``ECPublicKey`` builds it after a
/// key's first verifications.
///
/// The arithmetic is ECDSA verification exactly (SEC 1 v2, §4.1.4): r and s in [1, n−1]; e the digest's
/// leftmost bits; w = s⁻¹ mod n; u1 = e·w and u2 = r·w mod n; R = u1·G + u2·Q, not the point at infinity; the
/// signature is valid when x(R) mod n = r. Tests hold it to `ECDSA_do_verify` on valid, altered and edge-case
/// signatures, from several threads at once.
///
/// x(R) is compared without making R affine: R comes out of the multiplications as Jacobian (X, Y, Z), x(R) =
/// X/Z² mod p, and since x(R) < p < 2n, x(R) mod n = r exactly when x(R) is r or r + n (the latter only when
/// r + n < p), that is when X ≡ r·Z² or X ≡ (r + n)·Z² (mod p), Z being invertible. Two multiplications mod p
/// instead of the field inversion that affine coordinates cost (about 5 µs here, half a point multiplication).
///
/// `@unchecked Sendable`: both groups are only read after construction (libcrypto's point multiplication reads
/// the precomputed table and never changes it); every call works in its own `BN_CTX` and points.
final class KeyMultiplesVerifier: @unchecked Sendable {
    /// The key's curve (a copy of its group, with the standard generator and libcrypto's table for it).
    private let curve: OpaquePointer
    /// The same curve with the key as its generator, and a precomputed table of the key's multiples.
    private let keyGroup: OpaquePointer
    /// The curve's order n, for ``ScalarInverse``.
    private let order: ScalarInverse.UInt256

    /// Builds the table for `ecKey`'s public key; nil when libcrypto refuses any step.
    init?(ecKey: OpaquePointer) {
        guard let group = EC_KEY_get0_group(ecKey), let key = EC_KEY_get0_public_key(ecKey),
            let curve = EC_GROUP_dup(group)
        else { return nil }
        guard let keyGroup = EC_GROUP_dup(group) else {
            EC_GROUP_free(curve)
            return nil
        }
        guard
            EC_GROUP_set_generator(keyGroup, key, EC_GROUP_get0_order(group), EC_GROUP_get0_cofactor(group)) == 1,
            EC_GROUP_precompute_mult(keyGroup, nil) == 1, let order = Self.order(of: group)
        else {
            EC_GROUP_free(keyGroup)
            EC_GROUP_free(curve)
            OpenSSLErrorQueue.clear()
            return nil
        }
        self.curve = curve
        self.keyGroup = keyGroup
        self.order = order
    }

    /// A 256-bit curve's order; nil for another size.
    private static func order(of group: OpaquePointer) -> ScalarInverse.UInt256? {
        guard let order = EC_GROUP_get0_order(group), BN_num_bits(order) == 256 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(order, &bytes, 32) == 32 else { return nil }
        return bytes.withUnsafeBytes { ScalarInverse.UInt256(bigEndian: $0) }
    }

    deinit {
        EC_GROUP_free(keyGroup)
        EC_GROUP_free(curve)
    }

    /// Whether (r, s), each `width` big-endian bytes at the start of `raw` and after it, is a valid signature
    /// over `digest` (at most 64 bytes; the leftmost bits of the curve's order length are used).
    func isValid(raw: UnsafeBufferPointer<UInt8>, width: Int, digest: [UInt8]) -> Bool {
        guard raw.count == 2 * width, let base = raw.baseAddress, let context = BN_CTX_new() else { return false }
        defer { BN_CTX_free(context) }
        BN_CTX_start(context)
        defer { BN_CTX_end(context) }
        guard let r = BN_CTX_get(context), let s = BN_CTX_get(context), let e = BN_CTX_get(context),
            let w = BN_CTX_get(context), let u1 = BN_CTX_get(context), let u2 = BN_CTX_get(context),
            let x = BN_CTX_get(context), let z = BN_CTX_get(context), let order = EC_GROUP_get0_order(curve),
            let field = EC_GROUP_get0_field(curve)
        else { return false }
        let orderBits = Int(BN_num_bits(order))
        guard BN_bin2bn(base, Int32(width), r) != nil, BN_bin2bn(base + width, Int32(width), s) != nil,
            BN_is_zero(r) == 0, BN_is_zero(s) == 0, BN_cmp(r, order) < 0, BN_cmp(s, order) < 0,
            digestInteger(digest, bits: orderBits, into: e)
        else { return failed() }
        let sBytes = UnsafeRawBufferPointer(start: base + width, count: width)
        guard invert(s, bytes: sBytes, order: order, into: w, context),
            BN_mod_mul(u1, e, w, order, context) == 1,
            BN_mod_mul(u2, r, w, order, context) == 1
        else { return failed() }
        guard let point = EC_POINT_new(curve) else { return failed() }
        defer { EC_POINT_free(point) }
        guard let keyPart = EC_POINT_new(keyGroup) else { return failed() }
        defer { EC_POINT_free(keyPart) }
        guard EC_POINT_mul(curve, point, u1, nil, nil, context) == 1,
            EC_POINT_mul(keyGroup, keyPart, u2, nil, nil, context) == 1,
            EC_POINT_add(curve, point, point, keyPart, context) == 1,
            EC_POINT_is_at_infinity(curve, point) == 0,
            EC_POINT_get_Jprojective_coordinates_GFp(curve, point, x, nil, z, context) == 1,
            BN_nnmod(x, x, field, context) == 1, BN_mod_sqr(z, z, field, context) == 1
        else { return failed() }
        return xCoordinate(x, over: z, is: r, order: order, field: field, context)
    }

    /// Whether X/Z² mod p, the affine x of a Jacobian point whose X and Z² (`zSquared`, mod p) are given, reduced
    /// mod n, is `r` (in [1, n−1]): whether X ≡ r·Z², or, when r + n < p, X ≡ (r + n)·Z² (mod p). X and Z² are
    /// reduced into [0, p) first.
    private func xCoordinate(
        _ x: OpaquePointer, over zSquared: OpaquePointer, is r: OpaquePointer, order: OpaquePointer,
        field: OpaquePointer, _ context: OpaquePointer
    ) -> Bool {
        guard let candidate = BN_CTX_get(context), let product = BN_CTX_get(context),
            BN_copy(candidate, r) != nil
        else { return failed() }
        while BN_cmp(candidate, field) < 0 {
            guard BN_mod_mul(product, candidate, zSquared, field, context) == 1 else { return failed() }
            if BN_cmp(product, x) == 0 { return true }
            guard BN_add(candidate, candidate, order) == 1 else { return failed() }
        }
        return false
    }

    /// w = s⁻¹ mod n: by ``ScalarInverse``, checked (s·w ≡ 1) with libcrypto, else by `BN_mod_inverse`.
    private func invert(
        _ s: OpaquePointer, bytes: UnsafeRawBufferPointer, order: OpaquePointer, into w: OpaquePointer,
        _ context: OpaquePointer
    ) -> Bool {
        if bytes.count == 32,
            let inverse = ScalarInverse.inverse(of: ScalarInverse.UInt256(bigEndian: bytes), modulo: self.order),
            inverse.bigEndianBytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, 32, w) }) != nil,
            let check = BN_CTX_get(context), BN_mod_mul(check, s, w, order, context) == 1, BN_is_one(check) == 1
        {
            return true
        }
        return BN_mod_inverse(w, s, order, context) != nil
    }

    /// e: the digest as a big-endian integer, keeping its leftmost `bits` bits when it is longer (SEC 1 §4.1.4
    /// step 3).
    private func digestInteger(_ digest: [UInt8], bits: Int, into e: OpaquePointer) -> Bool {
        digest.withUnsafeBufferPointer { bytes in
            guard BN_bin2bn(bytes.baseAddress, Int32(bytes.count), e) != nil else { return false }
            let extra = bytes.count * 8 - bits
            return extra <= 0 || BN_rshift(e, e, Int32(extra)) == 1
        }
    }

    private func failed() -> Bool {
        OpenSSLErrorQueue.clear()
        return false
    }
}
