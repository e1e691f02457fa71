import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCrypto
import LedgerJSON
import Synchronization
import Testing

@Suite struct APITokenIssuerTests {
    static let key = try! AppStoreAPIKey(
        keyId: "2X9R4HXF34", issuerId: "57246542-96fe-1a63-e053-0824d011072a",
        privateKey: ECPrivateKey(generating: .p256))

    /// The three parts of a compact JWS, base64url-decoded.
    static func parts(_ token: String) -> (header: JSONValue, claims: JSONValue, signature: [UInt8], input: String) {
        let pieces = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(pieces.count == 3)
        let header = try! JSONValue.parse(Base64.decodeURL(pieces[0])!)
        let claims = try! JSONValue.parse(Base64.decodeURL(pieces[1])!)
        return (header, claims, Base64.decodeURL(pieces[2])!, pieces[0] + "." + pieces[1])
    }

    @Test func tokenCarriesApplesDocumentedHeaderAndClaimsAndVerifies() throws {
        let now: Int64 = 1_772_323_200_000
        let issuer = APITokenIssuer(key: Self.key, bundleId: "com.visla.gps", clock: { now })
        let token = try issuer.token()
        let (header, claims, signature, input) = Self.parts(token)
        #expect(header == .object(["alg": "ES256", "kid": "2X9R4HXF34", "typ": "JWT"]))
        #expect(claims["iss"] == .string("57246542-96fe-1a63-e053-0824d011072a"))
        #expect(claims["iat"] == .integer(now / 1000))
        let lifetime = (claims["exp"]?.int64 ?? 0) - (claims["iat"]?.int64 ?? 0)
        #expect(lifetime > 0 && lifetime <= 3600)
        #expect(claims["aud"] == .string("appstoreconnect-v1"))
        #expect(claims["bid"] == .string("com.visla.gps"))
        // The signature is raw r‖s (64 bytes), and the key's public half accepts it over header.claims.
        #expect(signature.count == 64)
        let parsed = try ECDSASignature(rawRepresentation: signature)
        #expect(Self.key.privateKey.publicKey.isValidSignature(parsed, for: Array(input.utf8), digest: .sha256))
    }

    @Test func tokenIsReusedThenRenewedBeforeItLapsesAndAfterInvalidation() throws {
        let clock = Mutex<Int64>(1_772_323_200_000)
        let issuer = APITokenIssuer(
            key: Self.key, bundleId: "com.visla.gps", lifetimeSeconds: 1200, clock: { clock.withLock { $0 } })
        let first = try issuer.token()
        clock.withLock { $0 += 60_000 }
        #expect(try issuer.token() == first)
        // Within a minute of its expiry a new one is signed.
        clock.withLock { $0 += 1_100_000 }
        let second = try issuer.token()
        #expect(second != first)
        #expect(Self.parts(second).claims["iat"] == .integer(clock.withLock { $0 } / 1000))
        issuer.invalidate()
        clock.withLock { $0 += 1000 }
        #expect(try issuer.token() != second)
    }

    @Test func aKeyFileThatIsNoPrivateKeyIsRefusedWithoutEchoingIt() {
        #expect(throws: AppStoreAPIError.self) {
            try AppStoreAPIKey(
                keyId: "K", issuerId: "I", p8: "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n")
        }
        do {
            _ = try AppStoreAPIKey(keyId: "K", issuerId: "I", p8: "c2VjcmV0")
        } catch {
            #expect(!error.message.contains("c2VjcmV0"))
        }
    }
}
