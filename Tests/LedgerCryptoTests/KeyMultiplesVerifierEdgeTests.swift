import CCrypto
import Testing

@testable import LedgerCrypto

/// The table verification compares x(R) without making R affine: x(R) mod n = r holds when X ≡ r·Z², or when
/// X ≡ (r + n)·Z² for an R whose x is at least n (p − n is about 2¹²⁸, so a real signature all but never has one).
@Suite("ECDSA: the projective comparison of x(R)")
struct KeyMultiplesVerifierEdgeTests {
    /// A P-256 SubjectPublicKeyInfo before the 65-byte uncompressed point.
    static let spkiPrefix = Hex.decode("3059301306072a8648ce3d020106082a8648ce3d030107034200")!

    /// A point R with x(R) = n + k, the smallest k ≥ 1 for which there is one, and that k.
    static func pointBeyondTheOrder(_ group: OpaquePointer, _ context: OpaquePointer) throws -> (OpaquePointer, UInt) {
        let point = try #require(EC_POINT_new(group))
        let x = try #require(BN_new())
        defer { BN_free(x) }
        for k: UInt in 1..<1_000 {
            _ = BN_copy(x, EC_GROUP_get0_order(group))
            _ = BN_add_word(x, k)
            if EC_POINT_set_compressed_coordinates(group, point, x, 0, context) == 1 { return (point, k) }
            ERR_clear_error()
        }
        EC_POINT_free(point)
        throw CryptoError(.libraryFailure, "no point with x just above n")
    }

    /// A signature (r = k, s) over `digest` made valid by choosing the key: Q = r⁻¹·(s·R − e·G).
    @Test func aSignatureWhoseRPlusNIsXOfRIsValidAsLibcryptoSays() throws {
        let group = try #require(EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1))
        defer { EC_GROUP_free(group) }
        let context = try #require(BN_CTX_new())
        defer { BN_CTX_free(context) }
        let (point, k) = try Self.pointBeyondTheOrder(group, context)
        defer { EC_POINT_free(point) }
        let order = try #require(EC_GROUP_get0_order(group))
        let digest = SHA256.hash(Array("x(R) beyond n".utf8))
        let r = try #require(BN_new())
        let s = try #require(BN_new())
        let e = try #require(BN_new())
        let rInverse = try #require(BN_new())
        defer { [r, s, e, rInverse].forEach { BN_free($0) } }
        _ = BN_set_word(r, k)
        _ = BN_set_word(s, 0x1234_5678_9ABC)
        _ = BN_bin2bn(digest, Int32(digest.count), e)
        _ = BN_mod_inverse(rInverse, r, order, context)
        let sR = try #require(EC_POINT_new(group))
        let eG = try #require(EC_POINT_new(group))
        let key = try #require(EC_POINT_new(group))
        defer { [sR, eG, key].forEach { EC_POINT_free($0) } }
        #expect(EC_POINT_mul(group, sR, nil, point, s, context) == 1)
        #expect(EC_POINT_mul(group, eG, e, nil, nil, context) == 1)
        #expect(EC_POINT_invert(group, eG, context) == 1)
        #expect(EC_POINT_add(group, sR, sR, eG, context) == 1)
        #expect(EC_POINT_mul(group, key, nil, sR, rInverse, context) == 1)
        var encoded = [UInt8](repeating: 0, count: 65)
        #expect(EC_POINT_point2oct(group, key, POINT_CONVERSION_UNCOMPRESSED, &encoded, 65, context) == 65)
        let publicKey = try ECPublicKey(derRepresentation: Self.spkiPrefix + encoded)
        let verifier = try #require(KeyMultiplesVerifier(ecKey: publicKey.ecKey))

        var raw = [UInt8](repeating: 0, count: 64)
        _ = BN_bn2binpad(r, &raw, 32)
        raw.withUnsafeMutableBufferPointer { _ = BN_bn2binpad(s, $0.baseAddress! + 32, 32) }
        #expect(try KeyMultiplesVerifierTests.answers(publicKey, verifier, raw, digest: digest) == [true, true])
        // r one more (x(R) − n + 1) is no signature, by either.
        var altered = raw
        altered[31] &+= 1
        #expect(try KeyMultiplesVerifierTests.answers(publicKey, verifier, altered, digest: digest) == [false, false])
    }
}
