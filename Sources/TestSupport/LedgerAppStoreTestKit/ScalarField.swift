import LedgerCrypto

/// Scalars modulo the order n of an elliptic curve's group, on fixed-width little-endian 64-bit limbs: the
/// range checks and reductions RFC 6979 needs around libcrypto's signature arithmetic.
///
/// Scalars here are test material (the simulator's deterministic PKI); the code is plain, not constant-time.
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

    static func compare(_ a: [UInt64], _ b: [UInt64]) -> Int {
        for index in stride(from: a.count - 1, through: 0, by: -1) where a[index] != b[index] {
            return a[index] < b[index] ? -1 : 1
        }
        return 0
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
}
