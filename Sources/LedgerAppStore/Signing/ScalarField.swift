import LedgerCrypto

/// Arithmetic modulo the order n of an elliptic curve's group, on fixed-width little-endian 64-bit limbs:
/// what ECDSA needs beyond the point multiplication (`s = k⁻¹·(z + r·d) mod n`).
///
/// Scalars here are public-key-free test material (the simulator's deterministic PKI); the arithmetic is
/// plain, not constant-time.
struct ScalarField: Sendable {
    /// The group order, little-endian limbs.
    let order: [UInt64]
    /// Limbs per scalar.
    let limbs: Int
    /// Bytes per scalar (the curve's coordinate size).
    let byteCount: Int

    /// The order of P-256 or P-384.
    init(curve: ECCurve) {
        switch curve {
        case .p256:
            self.init(hex: "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")
        case .p384:
            self.init(
                hex: "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF581A0DB248B0A77AECEC196ACCC52973")
        }
    }

    private init(hex: String) {
        let bytes = Hex.decode(hex)!
        self.byteCount = bytes.count
        self.limbs = bytes.count / 8
        self.order = Self.limbs(bigEndian: bytes, count: bytes.count / 8)
    }

    /// The big-endian bytes as limbs (the bytes must fit).
    static func limbs(bigEndian bytes: [UInt8], count: Int) -> [UInt64] {
        var result = [UInt64](repeating: 0, count: count)
        for (index, byte) in bytes.reversed().enumerated() where index / 8 < count {
            result[index / 8] |= UInt64(byte) << (8 * UInt64(index % 8))
        }
        return result
    }

    /// The scalar as `byteCount` big-endian bytes.
    func bytes(_ value: [UInt64]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: byteCount)
        for index in 0..<byteCount {
            out[byteCount - 1 - index] = UInt8(truncatingIfNeeded: value[index / 8] >> (8 * UInt64(index % 8)))
        }
        return out
    }

    /// Whether `value` is in `[1, n)`.
    func isValidScalar(_ value: [UInt64]) -> Bool {
        !value.allSatisfy { $0 == 0 } && Self.compare(value, order) < 0
    }

    /// `value mod n` for a value of at most `limbs` limbs below 2n (one conditional subtraction).
    func reducedOnce(_ value: [UInt64]) -> [UInt64] {
        var result = value
        if Self.compare(result, order) >= 0 { _ = Self.subtract(&result, order) }
        return result
    }

    /// `(a + b) mod n` for a, b < n.
    func add(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var sum = a
        let carry = Self.add(&sum, b)
        if carry || Self.compare(sum, order) >= 0 { _ = Self.subtract(&sum, order) }
        return sum
    }

    /// `(a · b) mod n` for a, b < n.
    func multiply(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
        var wide = [UInt64](repeating: 0, count: 2 * limbs)
        for i in 0..<limbs {
            var carry: UInt64 = 0
            for j in 0..<limbs {
                let (high, low) = a[i].multipliedFullWidth(by: b[j])
                let (s1, c1) = low.addingReportingOverflow(wide[i + j])
                let (s2, c2) = s1.addingReportingOverflow(carry)
                wide[i + j] = s2
                carry = high &+ (c1 ? 1 : 0) &+ (c2 ? 1 : 0)
            }
            wide[i + limbs] = carry
        }
        return reduce(wide)
    }

    /// A value of any width modulo n, by binary long division (shift in one bit, subtract when ≥ n).
    func reduce(_ wide: [UInt64]) -> [UInt64] {
        var remainder = [UInt64](repeating: 0, count: limbs)
        for bit in stride(from: wide.count * 64 - 1, through: 0, by: -1) {
            let top = remainder[limbs - 1] >> 63
            Self.shiftLeftOne(&remainder, in: wide[bit / 64] >> UInt64(bit % 64) & 1)
            if top == 1 || Self.compare(remainder, order) >= 0 {
                _ = Self.subtract(&remainder, order)
            }
        }
        return remainder
    }

    /// `a⁻¹ mod n` for `a` in `[1, n)` (n is prime), by the binary extended Euclidean algorithm.
    func inverse(_ a: [UInt64]) -> [UInt64] {
        var u = a
        var v = order
        var x1 = [UInt64](repeating: 0, count: limbs)
        x1[0] = 1
        var x2 = [UInt64](repeating: 0, count: limbs)
        let one = x1
        while u != one && v != one {
            while u[0] & 1 == 0 {
                Self.shiftRightOne(&u, in: 0)
                halve(&x1)
            }
            while v[0] & 1 == 0 {
                Self.shiftRightOne(&v, in: 0)
                halve(&x2)
            }
            if Self.compare(u, v) >= 0 {
                _ = Self.subtract(&u, v)
                subtract(&x1, x2)
            } else {
                _ = Self.subtract(&v, u)
                subtract(&x2, x1)
            }
        }
        return u == one ? x1 : x2
    }

    /// `x / 2 mod n` for x < n (n odd).
    private func halve(_ x: inout [UInt64]) {
        if x[0] & 1 == 0 {
            Self.shiftRightOne(&x, in: 0)
        } else {
            let carry = Self.add(&x, order)
            Self.shiftRightOne(&x, in: carry ? 1 : 0)
        }
    }

    /// `a = (a − b) mod n` for a, b < n.
    private func subtract(_ a: inout [UInt64], _ b: [UInt64]) {
        if Self.subtract(&a, b) { _ = Self.add(&a, order) }
    }

    static func compare(_ a: [UInt64], _ b: [UInt64]) -> Int {
        for index in stride(from: a.count - 1, through: 0, by: -1) where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return 0
    }

    /// `a += b`, returning the carry out.
    static func add(_ a: inout [UInt64], _ b: [UInt64]) -> Bool {
        var carry = false
        for index in 0..<a.count {
            let (s1, c1) = a[index].addingReportingOverflow(b[index])
            let (s2, c2) = s1.addingReportingOverflow(carry ? 1 : 0)
            a[index] = s2
            carry = c1 || c2
        }
        return carry
    }

    /// `a −= b`, returning the borrow out.
    static func subtract(_ a: inout [UInt64], _ b: [UInt64]) -> Bool {
        var borrow = false
        for index in 0..<a.count {
            let (d1, b1) = a[index].subtractingReportingOverflow(b[index])
            let (d2, b2) = d1.subtractingReportingOverflow(borrow ? 1 : 0)
            a[index] = d2
            borrow = b1 || b2
        }
        return borrow
    }

    static func shiftLeftOne(_ x: inout [UInt64], in bit: UInt64) {
        var carry = bit
        for index in 0..<x.count {
            let next = x[index] >> 63
            x[index] = x[index] << 1 | carry
            carry = next
        }
    }

    static func shiftRightOne(_ x: inout [UInt64], in bit: UInt64) {
        var carry = bit
        for index in stride(from: x.count - 1, through: 0, by: -1) {
            let next = x[index] & 1
            x[index] = x[index] >> 1 | carry << 63
            carry = next
        }
    }
}
