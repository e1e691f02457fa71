import LedgerCrypto
import Testing

/// Verifying a raw R‖S signature hands libcrypto the two integers; verifying its DER form hands it the
/// encoding. Both must agree on every signature, valid or not.
@Suite("ECDSA: raw and DER verification agree")
struct ECDSAVerifyPathTests {
    static let message = Array("ledger interop".utf8)

    /// Both answers for one raw signature over the message's digest.
    static func answers(_ key: ECPublicKey, _ raw: [UInt8], digest: DigestAlgorithm) throws -> (Bool, Bool) {
        let signature = try ECDSASignature(rawRepresentation: raw)
        let hash = digest.hash(message)
        return (
            key.isValidSignature(signature, forDigest: hash),
            key.isValidSignature(derSignature: signature.derRepresentation, forDigest: hash)
        )
    }

    @Test(arguments: ECCurve.allCases)
    func validTamperedAndDegenerateSignaturesGetOneAnswer(curve: ECCurve) throws {
        let key = try ECPrivateKey(generating: curve)
        let digest = curve.defaultDigest
        let width = curve.coordinateByteCount
        for _ in 0..<8 {
            let raw = try key.signature(for: Self.message, digest: digest).rawRepresentation
            #expect(try Self.answers(key.publicKey, raw, digest: digest) == (true, true))
            for position in stride(from: 0, to: raw.count, by: 7) {
                var tampered = raw
                tampered[position] ^= 0x01
                #expect(try Self.answers(key.publicKey, tampered, digest: digest) == (false, false))
            }
        }
        let zero = [UInt8](repeating: 0, count: 2 * width)
        let ones = [UInt8](repeating: 0xFF, count: 2 * width)
        let zeroS =
            try key.signature(for: Self.message, digest: digest).rawRepresentation.prefix(width)
            + [UInt8](repeating: 0, count: width)
        for degenerate in [zero, ones, Array(zeroS)] {
            #expect(try Self.answers(key.publicKey, degenerate, digest: digest) == (false, false))
        }
    }

    @Test func aSignatureForAnotherCurveIsRefused() throws {
        let p256 = try ECPrivateKey(generating: .p256)
        let p384 = try ECPrivateKey(generating: .p384)
        let signature = try p384.signature(for: Self.message, digest: .sha384)
        #expect(!p256.publicKey.isValidSignature(signature, for: Self.message, digest: .sha384))
    }
}
