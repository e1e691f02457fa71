/// The inverse of a 256-bit integer modulo an odd 256-bit modulus (a curve's order), by binary extended
/// Euclid on four 64-bit limbs: a few microseconds where `BN_mod_inverse` takes about twenty. Only public data is
/// inverted (a signature's s), so the running time may depend on it.
///
/// Callers check the result (s·w ≡ 1 mod n) with libcrypto and fall back to `BN_mod_inverse` when it fails, so a
/// mistake here could only slow a verification down, never change its answer.
struct ScalarInverse {
    /// A 256-bit unsigned integer, least significant limb first.
    struct UInt256: Equatable {
        var limbs: (UInt64, UInt64, UInt64, UInt64)

        static func == (lhs: UInt256, rhs: UInt256) -> Bool {
            lhs.limbs.0 == rhs.limbs.0 && lhs.limbs.1 == rhs.limbs.1 && lhs.limbs.2 == rhs.limbs.2
                && lhs.limbs.3 == rhs.limbs.3
        }

        /// From 32 big-endian bytes.
        init(bigEndian bytes: UnsafeRawBufferPointer) {
            precondition(bytes.count == 32)
            func limb(_ index: Int) -> UInt64 {
                UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 24 - 8 * index, as: UInt64.self))
            }
            limbs = (limb(0), limb(1), limb(2), limb(3))
        }

        init(_ value: UInt64) { limbs = (value, 0, 0, 0) }

        /// The 32 big-endian bytes.
        var bigEndianBytes: [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            out.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: limbs.3.bigEndian, toByteOffset: 0, as: UInt64.self)
                raw.storeBytes(of: limbs.2.bigEndian, toByteOffset: 8, as: UInt64.self)
                raw.storeBytes(of: limbs.1.bigEndian, toByteOffset: 16, as: UInt64.self)
                raw.storeBytes(of: limbs.0.bigEndian, toByteOffset: 24, as: UInt64.self)
            }
            return out
        }

        var isEven: Bool { limbs.0 & 1 == 0 }
        var isZero: Bool { limbs.0 | limbs.1 | limbs.2 | limbs.3 == 0 }
        var isOne: Bool { limbs.0 == 1 && limbs.1 | limbs.2 | limbs.3 == 0 }

        /// Whether self ≥ other.
        func isAtLeast(_ other: UInt256) -> Bool {
            if limbs.3 != other.limbs.3 { return limbs.3 > other.limbs.3 }
            if limbs.2 != other.limbs.2 { return limbs.2 > other.limbs.2 }
            if limbs.1 != other.limbs.1 { return limbs.1 > other.limbs.1 }
            return limbs.0 >= other.limbs.0
        }

        /// self + other, and the carry out of the top limb.
        func adding(_ other: UInt256) -> (UInt256, carry: UInt64) {
            var result = self
            var carry: UInt64 = 0
            (result.limbs.0, carry) = Self.add(limbs.0, other.limbs.0, carry)
            (result.limbs.1, carry) = Self.add(limbs.1, other.limbs.1, carry)
            (result.limbs.2, carry) = Self.add(limbs.2, other.limbs.2, carry)
            (result.limbs.3, carry) = Self.add(limbs.3, other.limbs.3, carry)
            return (result, carry)
        }

        /// self − other, wrapping (callers subtract a smaller number, or add the modulus back).
        func subtracting(_ other: UInt256) -> UInt256 {
            var result = self
            var borrow: UInt64 = 0
            (result.limbs.0, borrow) = Self.subtract(limbs.0, other.limbs.0, borrow)
            (result.limbs.1, borrow) = Self.subtract(limbs.1, other.limbs.1, borrow)
            (result.limbs.2, borrow) = Self.subtract(limbs.2, other.limbs.2, borrow)
            (result.limbs.3, _) = Self.subtract(limbs.3, other.limbs.3, borrow)
            return result
        }

        /// (carry·2²⁵⁶ + self) / 2.
        func halved(carry: UInt64 = 0) -> UInt256 {
            var result = self
            result.limbs.0 = limbs.0 >> 1 | limbs.1 << 63
            result.limbs.1 = limbs.1 >> 1 | limbs.2 << 63
            result.limbs.2 = limbs.2 >> 1 | limbs.3 << 63
            result.limbs.3 = limbs.3 >> 1 | carry << 63
            return result
        }

        @inline(__always)
        private static func add(_ a: UInt64, _ b: UInt64, _ carry: UInt64) -> (UInt64, UInt64) {
            let (sum, first) = a.addingReportingOverflow(b)
            let (total, second) = sum.addingReportingOverflow(carry)
            return (total, (first ? 1 : 0) + (second ? 1 : 0))
        }

        @inline(__always)
        private static func subtract(_ a: UInt64, _ b: UInt64, _ borrow: UInt64) -> (UInt64, UInt64) {
            let (difference, first) = a.subtractingReportingOverflow(b)
            let (total, second) = difference.subtractingReportingOverflow(borrow)
            return (total, (first ? 1 : 0) + (second ? 1 : 0))
        }
    }

    /// a⁻¹ mod `modulus` for an odd modulus and 0 < a < modulus; nil when a and the modulus share a factor.
    static func inverse(of a: UInt256, modulo modulus: UInt256) -> UInt256? {
        guard !modulus.isEven, !a.isZero, !a.isAtLeast(modulus) else { return nil }
        // Invariants: x1·a ≡ u and x2·a ≡ v (mod modulus), with x1, x2 in [0, modulus).
        var u = a
        var v = modulus
        var x1 = UInt256(1)
        var x2 = UInt256(0)
        func halve(_ x: UInt256) -> UInt256 {
            if x.isEven { return x.halved() }
            let (sum, carry) = x.adding(modulus)
            return sum.halved(carry: carry)
        }
        func difference(_ x: UInt256, _ y: UInt256) -> UInt256 {
            x.isAtLeast(y) ? x.subtracting(y) : x.adding(modulus).0.subtracting(y)
        }
        while !u.isOne && !v.isOne {
            if u.isZero || v.isZero { return nil }
            while u.isEven {
                u = u.halved()
                x1 = halve(x1)
            }
            while v.isEven {
                v = v.halved()
                x2 = halve(x2)
            }
            if u.isAtLeast(v) {
                u = u.subtracting(v)
                x1 = difference(x1, x2)
            } else {
                v = v.subtracting(u)
                x2 = difference(x2, x1)
            }
        }
        return u.isOne ? x1 : x2
    }
}
