import LedgerSystem
import Testing

@testable import LedgerCrypto

/// The table-of-multiples verification must give libcrypto's `ECDSA_do_verify` answer on every signature.
@Suite("ECDSA: verification with a table of the key's multiples")
struct KeyMultiplesVerifierTests {
    /// The P-256 order n, big-endian.
    static let order: [UInt8] = Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")!

    /// Both answers (table, libcrypto) for a raw R‖S signature over `digest`.
    static func answers(_ key: ECPublicKey, _ verifier: KeyMultiplesVerifier, _ raw: [UInt8], digest: [UInt8])
        throws -> [Bool]
    {
        let table = raw.withUnsafeBufferPointer { verifier.isValid(raw: $0, width: 32, digest: digest) }
        guard let signature = try? ECDSASignature(rawRepresentation: raw) else { return [table, false] }
        return [table, key.isValidSignatureByLibcrypto(signature, forDigest: digest)]
    }

    /// n − x for a 32-byte big-endian x < n.
    static func negated(_ x: ArraySlice<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in (0..<32).reversed() {
            var value = Int(order[index]) - Int(x[x.startIndex + index]) - borrow
            borrow = value < 0 ? 1 : 0
            if value < 0 { value += 256 }
            out[index] = UInt8(value)
        }
        return out
    }

    @Test func validAlteredAndEdgeCaseSignaturesGetLibcryptosAnswer() throws {
        for round in 0..<6 {
            let key = try ECPrivateKey(generating: .p256)
            let verifier = try #require(KeyMultiplesVerifier(ecKey: key.publicKey.ecKey))
            let other = try ECPrivateKey(generating: .p256).publicKey
            for message in 0..<6 {
                let data = Array("message \(round).\(message)".utf8)
                let digest = SHA256.hash(data)
                let raw = try key.signature(forDigest: digest).rawRepresentation
                #expect(try Self.answers(key.publicKey, verifier, raw, digest: digest) == [true, true])
                // The same signature with s replaced by n − s is valid too (ECDSA does not require low s).
                let highS = Array(raw.prefix(32)) + Self.negated(raw[32...])
                #expect(try Self.answers(key.publicKey, verifier, highS, digest: digest) == [true, true])
                for position in stride(from: message, to: 64, by: 5) {
                    var altered = raw
                    altered[position] ^= UInt8(1 << (position % 8))
                    #expect(try Self.answers(key.publicKey, verifier, altered, digest: digest) == [false, false])
                }
                var otherDigest = digest
                otherDigest[31] ^= 0x80
                #expect(try Self.answers(key.publicKey, verifier, raw, digest: otherDigest) == [false, false])
                let otherVerifier = try #require(KeyMultiplesVerifier(ecKey: other.ecKey))
                #expect(try Self.answers(other, otherVerifier, raw, digest: digest) == [false, false])
                // A digest longer than the curve (SHA-384 with P-256) is cut to its leftmost 256 bits.
                let long = DigestAlgorithm.sha384.hash(data)
                let longRaw = try key.signature(forDigest: long).rawRepresentation
                #expect(try Self.answers(key.publicKey, verifier, longRaw, digest: long) == [true, true])
            }
            // r or s out of [1, n − 1].
            let digest = SHA256.hash(Array("edge \(round)".utf8))
            let raw = try key.signature(forDigest: digest).rawRepresentation
            let zero = [UInt8](repeating: 0, count: 32)
            var overOrder = Self.order
            overOrder[31] &+= 1
            for (r, s) in [
                (zero, Array(raw[32...])), (Array(raw.prefix(32)), zero), (Self.order, Array(raw[32...])),
                (Array(raw.prefix(32)), Self.order), (overOrder, Array(raw[32...])),
                ([UInt8](repeating: 0xFF, count: 32), [UInt8](repeating: 0xFF, count: 32)),
            ] {
                #expect(try Self.answers(key.publicKey, verifier, r + s, digest: digest) == [false, false])
            }
            // Wrong lengths are refused.
            #expect(
                raw.dropLast().withUnsafeBufferPointer { verifier.isValid(raw: $0, width: 32, digest: digest) } == false
            )
        }
    }

    @Test func aKeyBuildsItsTableAfterAFewVerificationsAndKeepsItsAnswers() throws {
        let key = try ECPrivateKey(generating: .p256)
        let digest = SHA256.hash(Array("renewal".utf8))
        let signature = try key.signature(forDigest: digest)
        var altered = signature.rawRepresentation
        altered[40] ^= 0x04
        let bad = try ECDSASignature(rawRepresentation: altered)
        #expect(!key.publicKey.hasMultiplesTable)
        for _ in 0..<(ECPublicKey.tableAfterVerifications + 4) {
            #expect(key.publicKey.isValidSignature(signature, forDigest: digest))
            #expect(!key.publicKey.isValidSignature(bad, forDigest: digest))
        }
        #expect(key.publicKey.hasMultiplesTable)
        let p384 = try ECPrivateKey(generating: .p384)
        let p384Digest = DigestAlgorithm.sha384.hash(Array("renewal".utf8))
        let p384Signature = try p384.signature(forDigest: p384Digest)
        for _ in 0..<(ECPublicKey.tableAfterVerifications + 4) {
            #expect(p384.publicKey.isValidSignature(p384Signature, forDigest: p384Digest))
        }
        #expect(!p384.publicKey.hasMultiplesTable)  // P-384 keys only verify certificates: no table
    }

    @Test func manyThreadsVerifyWithOneTable() throws {
        let key = try ECPrivateKey(generating: .p256)
        let verifier = try #require(KeyMultiplesVerifier(ecKey: key.publicKey.ecKey))
        let signed = try (0..<16).map { index in
            let digest = SHA256.hash(Array("thread message \(index)".utf8))
            return (digest, try key.signature(forDigest: digest).rawRepresentation)
        }
        let wrong = ResultSlots<Int>(count: 4)
        runThreads(4) { thread in
            var count = 0
            for round in 0..<40 {
                let (digest, raw) = signed[(thread + round) % signed.count]
                var altered = raw
                if round % 3 == 0 { altered[round % 64] ^= 0x10 }
                let valid = altered.withUnsafeBufferPointer { verifier.isValid(raw: $0, width: 32, digest: digest) }
                if valid != (round % 3 != 0) { count += 1 }
            }
            wrong.set(thread, count)
        }
        #expect(wrong.values() == [0, 0, 0, 0] as [Int?])
    }
}

@Suite("ECDSA: modular inverse of scalars")
struct ScalarInverseTests {
    typealias UInt256 = ScalarInverse.UInt256

    static func number(_ hex: String) -> UInt256 {
        let bytes = Hex.decode(String(repeating: "0", count: 64 - hex.count) + hex)!
        return bytes.withUnsafeBytes { UInt256(bigEndian: $0) }
    }

    /// (a · b) mod m by double-and-add on UInt256, for checking (slow, simple).
    static func multiply(_ a: UInt256, _ b: UInt256, modulo m: UInt256) -> UInt256 {
        var result = UInt256(0)
        let bytes = b.bigEndianBytes
        for byte in bytes {
            for bit in (0..<8).reversed() {
                let (doubled, carry) = result.adding(result)
                result = carry != 0 || doubled.isAtLeast(m) ? doubled.subtracting(m) : doubled
                if byte >> UInt8(bit) & 1 == 1 {
                    let (sum, carry) = result.adding(a)
                    result = carry != 0 || sum.isAtLeast(m) ? sum.subtracting(m) : sum
                }
            }
        }
        return result
    }

    @Test func inversesMultiplyToOneModuloTheOrder() {
        let order = Self.number(Hex.encode(KeyMultiplesVerifierTests.order))
        var values = [UInt256(1), UInt256(2), UInt256(3), order.subtracting(UInt256(1)), order.subtracting(UInt256(2))]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            var limbs: [UInt64] = []
            for _ in 0..<4 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                limbs.append(state ^ (state >> 29))
            }
            var value = UInt256(0)
            value.limbs = (limbs[0], limbs[1], limbs[2], limbs[3])
            if value.isAtLeast(order) { value = value.subtracting(order) }
            if !value.isZero { values.append(value) }
        }
        for value in values {
            let inverse = ScalarInverse.inverse(of: value, modulo: order)
            #expect(inverse.map { Self.multiply(value, $0, modulo: order) } == UInt256(1), "\(value.bigEndianBytes)")
        }
    }

    /// Values with long runs of zero bits (powers of two, one bit short of the order) take the inversion's runs of
    /// halvings at once and its early end; their inverses must be those of the step-by-step rounds.
    @Test func sparseValuesInvertToo() {
        let order = Self.number(Hex.encode(KeyMultiplesVerifierTests.order))
        var values: [UInt256] = []
        for bit in 0..<256 {
            var value = UInt256(0)
            switch bit / 64 {
            case 0: value.limbs.0 = 1 << UInt64(bit)
            case 1: value.limbs.1 = 1 << UInt64(bit - 64)
            case 2: value.limbs.2 = 1 << UInt64(bit - 128)
            default: value.limbs.3 = 1 << UInt64(bit - 192)
            }
            if !value.isAtLeast(order) {
                values.append(value)
                values.append(order.subtracting(value))
            }
        }
        values.append(Self.number("ffffffff00000000ffffffffffffffff00000000000000000000000000000001"))
        for value in values {
            let inverse = ScalarInverse.inverse(of: value, modulo: order)
            #expect(inverse.map { Self.multiply(value, $0, modulo: order) } == UInt256(1), "\(value.bigEndianBytes)")
        }
    }

    @Test func outOfRangeAndSharedFactorsHaveNoInverse() {
        let order = Self.number(Hex.encode(KeyMultiplesVerifierTests.order))
        #expect(ScalarInverse.inverse(of: UInt256(0), modulo: order) == nil)
        #expect(ScalarInverse.inverse(of: order, modulo: order) == nil)
        #expect(ScalarInverse.inverse(of: UInt256(3), modulo: UInt256(8)) == nil)  // an even modulus
        #expect(ScalarInverse.inverse(of: UInt256(6), modulo: UInt256(9)) == nil)  // gcd 3
        #expect(ScalarInverse.inverse(of: UInt256(2), modulo: UInt256(9)) == UInt256(5))
    }
}
