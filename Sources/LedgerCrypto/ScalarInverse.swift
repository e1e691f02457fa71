/// The inverse of a 256-bit integer modulo an odd 256-bit modulus (a curve's order), by Pornin's optimised binary
/// GCD ("Optimized Binary GCD for Modular Inversion", 2020): 31 steps at a time on 64-bit approximations of the two
/// values, then one update of the full values by the steps' combined factors. About 2 µs, where the bit-by-bit
/// binary extended Euclid took about 18 and `BN_mod_inverse` about 20. Only public data is inverted (a signature's
/// s), so the running time may depend on it.
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

        /// The number of bits up to the highest one (0 for zero).
        var bitWidth: Int {
            if limbs.3 != 0 { return 256 - limbs.3.leadingZeroBitCount }
            if limbs.2 != 0 { return 192 - limbs.2.leadingZeroBitCount }
            if limbs.1 != 0 { return 128 - limbs.1.leadingZeroBitCount }
            return 64 - limbs.0.leadingZeroBitCount
        }

        /// The 64-bit stand-in for a value of at most `width` bits (64 ≤ width ≤ 256) in a round of the inversion:
        /// its low 31 bits, and above them its top 33 bits, bits width − 33 up to width − 1.
        func approximate(width: Int) -> UInt64 {
            let shift = width - 33
            let word = shift / 64
            let offset = shift % 64
            func limb(_ index: Int) -> UInt64 {
                switch index {
                case 0: return limbs.0
                case 1: return limbs.1
                case 2: return limbs.2
                case 3: return limbs.3
                default: return 0
                }
            }
            let low = limb(word) >> UInt64(offset)
            let high = offset == 0 ? 0 : limb(word + 1) << UInt64(64 - offset)
            let top = (low | high) & 0x1_FFFF_FFFF
            return top << 31 | limbs.0 & 0x7FFF_FFFF
        }
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
    ///
    /// Invariants: a ≡ u·y and b ≡ v·y (mod modulus), y the value inverted; a and b are driven to 0 and
    /// gcd(y, modulus) by subtracting the smaller from the larger and halving. Each round takes 31 such steps
    /// on `approximate` forms of a and b (their low 31 bits and their top 33), which decide the same steps as the
    /// full values would, collects them as factors (a, b) ← ((f0·a + g0·b), (f1·a + g1·b)) / 2³¹, and applies them
    /// to the full values at once; u and v follow with the same factors and a Montgomery division by 2³¹.
    /// 17 rounds (527 steps) cover the 2·256 − 1 that 256-bit values can need. A run of halvings is taken in one
    /// shift (its length the trailing zeros), and the rounds stop once a is 0: every later round would leave b and
    /// v as they are (its factors are f1 = 0, g1 = 2³¹), so the answer is the same, sooner.
    static func inverse(of y: UInt256, modulo modulus: UInt256) -> UInt256? {
        guard !modulus.isEven, !y.isZero, !y.isAtLeast(modulus) else { return nil }
        let montgomery = Self.negatedInverse31(of: modulus.limbs.0)
        var a = y
        var b = modulus
        var u = UInt256(1)
        var v = UInt256(0)
        for _ in 0..<17 where !a.isZero {
            let width = max(a.bitWidth, b.bitWidth, 64)
            var aa = a.approximate(width: width)
            var bb = b.approximate(width: width)
            var (f0, g0, f1, g1): (Int64, Int64, Int64, Int64) = (1, 0, 0, 1)
            var steps = 31
            while true {
                // Halvings, as many as aa's trailing zeros (all the steps left when aa is 0).
                let zeros = min(aa.trailingZeroBitCount, steps)
                aa >>= UInt64(zeros)
                f1 <<= Int64(zeros)
                g1 <<= Int64(zeros)
                steps -= zeros
                guard steps > 0 else { break }
                // aa is odd: subtract the smaller from the larger (selected, not branched on: which one it is
                // cannot be predicted), leaving an even aa for the halvings that end this step.
                let swapped = aa < bb
                (aa, bb) = swapped ? (bb, aa) : (aa, bb)
                (f0, f1) = swapped ? (f1, f0) : (f0, f1)
                (g0, g1) = swapped ? (g1, g0) : (g0, g1)
                aa -= bb
                f0 -= f1
                g0 -= g1
            }
            var nextA = Wide(a, f0, b, g0).shiftedRight31()
            var nextB = Wide(a, f1, b, g1).shiftedRight31()
            if nextA.isNegative {
                nextA = nextA.negated()
                (f0, g0) = (-f0, -g0)
            }
            if nextB.isNegative {
                nextB = nextB.negated()
                (f1, g1) = (-f1, -g1)
            }
            a = nextA.low256
            b = nextB.low256
            (u, v) = (
                Self.combine(u, f0, v, g0, modulus: modulus, montgomery: montgomery),
                Self.combine(u, f1, v, g1, modulus: modulus, montgomery: montgomery)
            )
        }
        guard a.isZero, b.isOne else { return nil }
        return v
    }

    /// (x·f + y·g) / 2³¹ mod `modulus`, for x, y in [0, modulus) and |f| + |g| ≤ 2³¹: the sum is made divisible by
    /// 2³¹ by adding the right multiple of the modulus (Montgomery's reduction), then brought into [0, modulus).
    private static func combine(
        _ x: UInt256, _ f: Int64, _ y: UInt256, _ g: Int64, modulus: UInt256, montgomery: UInt64
    ) -> UInt256 {
        let low = x.limbs.0 &* UInt64(bitPattern: f) &+ y.limbs.0 &* UInt64(bitPattern: g)
        let multiple = (low &* montgomery) & 0x7FFF_FFFF
        var reduced = Wide(x, f, y, g, plus: modulus, times: multiple).shiftedRight31()
        while reduced.isNegative { reduced = reduced.adding(modulus) }
        while reduced.limbs.4 != 0 || reduced.low256.isAtLeast(modulus) {
            reduced = reduced.subtracting(modulus)
        }
        return reduced.low256
    }

    /// −m⁻¹ mod 2³¹ for an odd m, by Newton's iteration (each step doubles the bits that are right).
    private static func negatedInverse31(of m: UInt64) -> UInt64 {
        var inverse = m  // right to 3 bits for an odd m
        for _ in 0..<5 { inverse = inverse &* (2 &- m &* inverse) }
        return (0 &- inverse) & 0x7FFF_FFFF
    }

    /// A signed 320-bit integer in two's complement, least significant limb first: room for a 256-bit value times a
    /// factor of at most 2³¹ in magnitude, and the sum of a few such.
    struct Wide {
        var limbs: (UInt64, UInt64, UInt64, UInt64, UInt64)

        /// x·f + y·g (+ z·h), limb by limb in one signed 128-bit accumulator: each limb's products are below
        /// 2⁹⁶ in magnitude, so the sum and the carry never overflow it.
        @inline(__always)
        init(_ x: UInt256, _ f: Int64, _ y: UInt256, _ g: Int64, plus z: UInt256 = UInt256(0), times h: UInt64 = 0) {
            let (f, g, h) = (Int128(f), Int128(g), Int128(h))
            @inline(__always)
            func term(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> Int128 {
                Int128(a) &* f &+ Int128(b) &* g &+ Int128(c) &* h
            }
            var accumulator = term(x.limbs.0, y.limbs.0, z.limbs.0)
            let l0 = UInt64(truncatingIfNeeded: accumulator)
            accumulator = (accumulator >> 64) &+ term(x.limbs.1, y.limbs.1, z.limbs.1)
            let l1 = UInt64(truncatingIfNeeded: accumulator)
            accumulator = (accumulator >> 64) &+ term(x.limbs.2, y.limbs.2, z.limbs.2)
            let l2 = UInt64(truncatingIfNeeded: accumulator)
            accumulator = (accumulator >> 64) &+ term(x.limbs.3, y.limbs.3, z.limbs.3)
            let l3 = UInt64(truncatingIfNeeded: accumulator)
            let l4 = UInt64(truncatingIfNeeded: accumulator >> 64)
            limbs = (l0, l1, l2, l3, l4)
        }

        private init(limbs: (UInt64, UInt64, UInt64, UInt64, UInt64)) { self.limbs = limbs }

        var isNegative: Bool { limbs.4 >> 63 == 1 }

        /// The low four limbs, for a value known to lie in [0, 2²⁵⁶).
        var low256: UInt256 {
            var value = UInt256(0)
            value.limbs = (limbs.0, limbs.1, limbs.2, limbs.3)
            return value
        }

        /// self + other, wrapping at 2³²⁰.
        func adding(_ other: UInt256) -> Wide {
            let (low, carry) = low256.adding(other)
            return Wide(limbs: (low.limbs.0, low.limbs.1, low.limbs.2, low.limbs.3, limbs.4 &+ carry))
        }

        /// self − other, wrapping at 2³²⁰.
        func subtracting(_ other: UInt256) -> Wide {
            let low = low256.subtracting(other)
            let borrow: UInt64 = low256.isAtLeast(other) ? 0 : 1
            return Wide(limbs: (low.limbs.0, low.limbs.1, low.limbs.2, low.limbs.3, limbs.4 &- borrow))
        }

        /// −self.
        func negated() -> Wide {
            var carry: UInt64 = 1
            func next(_ limb: UInt64) -> UInt64 {
                let (sum, overflow) = (~limb).addingReportingOverflow(carry)
                carry = overflow ? 1 : 0
                return sum
            }
            let l0 = next(limbs.0)
            let l1 = next(limbs.1)
            let l2 = next(limbs.2)
            let l3 = next(limbs.3)
            return Wide(limbs: (l0, l1, l2, l3, next(limbs.4)))
        }

        /// self / 2³¹, rounding toward −∞ (exact for the multiples of 2³¹ it is used on).
        func shiftedRight31() -> Wide {
            Wide(
                limbs: (
                    limbs.0 >> 31 | limbs.1 << 33, limbs.1 >> 31 | limbs.2 << 33, limbs.2 >> 31 | limbs.3 << 33,
                    limbs.3 >> 31 | limbs.4 << 33, UInt64(bitPattern: Int64(bitPattern: limbs.4) >> 31)
                ))
        }
    }
}
