import LedgerAppStore
import LedgerJSON
import LedgerSystem
import Synchronization

/// Signs the ES256 JSON Web Tokens the App Store Server API authenticates with (Apple's "Generating JSON Web
/// Tokens for API requests"): header `alg` ES256, `kid`, `typ` JWT; claims `iss`, `iat`, `exp`, `aud`
/// `appstoreconnect-v1` and `bid`. A token is reused until shortly before it lapses, and renewed at once after
/// a 401 (``invalidate()``).
public final class APITokenIssuer: Sendable {
    /// The audience Apple requires.
    public static let audience = "appstoreconnect-v1"
    /// Apple refuses tokens that live longer than an hour.
    public static let maximumLifetimeSeconds: Int64 = 3600

    /// The key that signs.
    public let key: AppStoreAPIKey
    /// The app's bundle id (`bid`).
    public let bundleId: String
    /// How long each token lives, in seconds (at most ``maximumLifetimeSeconds``).
    public let lifetimeSeconds: Int64
    private let clock: @Sendable () -> Int64
    private let cached = Mutex<(token: String, expiresAt: Int64)?>(nil)

    /// Creates an issuer; `clock` gives milliseconds since the epoch.
    public init(
        key: AppStoreAPIKey, bundleId: String, lifetimeSeconds: Int64 = 1200,
        clock: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds
    ) {
        self.key = key
        self.bundleId = bundleId
        self.lifetimeSeconds = min(max(lifetimeSeconds, 120), Self.maximumLifetimeSeconds)
        self.clock = clock
    }

    /// A token valid for at least another minute: the cached one, or a new one.
    public func token() throws(AppStoreAPIError) -> String {
        let now = clock() / 1000
        if let current = cached.withLock({ $0 }), current.expiresAt - now > 60 { return current.token }
        let fresh = try sign(issuedAt: now)
        cached.withLock { $0 = (fresh, now + lifetimeSeconds) }
        return fresh
    }

    /// Forgets the cached token (Apple answered 401): the next ``token()`` signs a new one.
    public func invalidate() { cached.withLock { $0 = nil } }

    /// Signs a token issued at `issuedAt` (seconds since the epoch).
    public func sign(issuedAt: Int64) throws(AppStoreAPIError) -> String {
        let header: JSONValue = .object([
            "alg": "ES256", "kid": .string(key.keyId), "typ": "JWT",
        ])
        let claims: JSONValue = .object([
            "iss": .string(key.issuerId), "iat": .integer(issuedAt), "exp": .integer(issuedAt + lifetimeSeconds),
            "aud": .string(Self.audience), "bid": .string(bundleId),
        ])
        let signingInput =
            Base64.encodeURL(header.serializedBytes()) + "." + Base64.encodeURL(claims.serializedBytes())
        do {
            // The JWS signature is the raw r‖s pair (64 bytes), not DER.
            let signature = try key.privateKey.signature(for: Array(signingInput.utf8), digest: .sha256)
            return signingInput + "." + Base64.encodeURL(signature.rawRepresentation)
        } catch {
            throw AppStoreAPIError(.invalidKey, "the in-app purchase key could not sign a token")
        }
    }
}
