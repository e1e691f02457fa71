import CCrypto
import LedgerCrypto

/// The one elliptic-curve operation RFC 6979 signing needs from libcrypto: the x coordinate of k·G.
///
/// `ECPrivateKey` offers only libcrypto's randomised signing, and deriving k·G through a key round trip
/// costs milliseconds in libcrypto 3.0's decoders; `EC_POINT_mul` takes tens of microseconds. This file is
/// the only one in the target that talks to libcrypto directly; every object is freed beside its creation.
///
/// `@unchecked Sendable`: the group is never modified after creation, and libcrypto allows concurrent
/// point multiplications on a shared constant group (each call brings its own point and numbers).
final class CurveGroup: @unchecked Sendable {
    /// The curve.
    let curve: ECCurve
    private let group: OpaquePointer

    /// Loads the named group of `curve`.
    init(curve: ECCurve) throws(CryptoError) {
        let nid = curve == .p256 ? NID_X9_62_prime256v1 : NID_secp384r1
        guard let group = EC_GROUP_new_by_curve_name(nid) else {
            ERR_clear_error()
            throw CryptoError(.libraryFailure, "could not load the \(curve) group")
        }
        self.curve = curve
        self.group = group
    }

    deinit { EC_GROUP_free(group) }

    /// The affine x coordinate of `scalar`·G, big-endian, `curve.coordinateByteCount` bytes.
    func generatorMultipleX(_ scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let point = EC_POINT_new(group) else {
            throw CryptoError(.libraryFailure, "could not allocate a \(curve) point")
        }
        defer { EC_POINT_free(point) }
        guard let k = BN_bin2bn(scalar, Int32(scalar.count), nil) else {
            throw CryptoError(.libraryFailure, "could not load a scalar")
        }
        defer { BN_clear_free(k) }
        guard let x = BN_new() else { throw CryptoError(.libraryFailure, "could not allocate a number") }
        defer { BN_free(x) }
        guard EC_POINT_mul(group, point, k, nil, nil, nil) == 1,
            EC_POINT_get_affine_coordinates(group, point, x, nil, nil) == 1
        else {
            ERR_clear_error()
            throw CryptoError(.libraryFailure, "the \(curve) point multiplication failed")
        }
        var out = [UInt8](repeating: 0, count: curve.coordinateByteCount)
        guard BN_bn2binpad(x, &out, Int32(out.count)) == Int32(out.count) else {
            throw CryptoError(.libraryFailure, "a coordinate did not fit \(out.count) bytes")
        }
        return out
    }
}
