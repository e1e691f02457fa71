/// The elliptic curves the ledger accepts: P-256 (ES256 leaf keys) and P-384 (Apple's roots and
/// intermediates).
public enum ECCurve: String, Sendable, CaseIterable, CustomStringConvertible {
    /// NIST P-256 (secp256r1, prime256v1).
    case p256 = "P-256"
    /// NIST P-384 (secp384r1).
    case p384 = "P-384"

    /// The size of one field element, and of each half of a raw R‖S signature, in bytes.
    public var coordinateByteCount: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        }
    }

    /// The hash that pairs with this curve in JOSE (ES256, ES384).
    public var defaultDigest: DigestAlgorithm {
        switch self {
        case .p256: return .sha256
        case .p384: return .sha384
        }
    }

    /// libcrypto's group name.
    var groupName: String {
        switch self {
        case .p256: return "P-256"
        case .p384: return "P-384"
        }
    }

    /// The curve for one of libcrypto's group names (either spelling), or nil.
    init?(groupName: String) {
        switch groupName {
        case "P-256", "prime256v1", "secp256r1": self = .p256
        case "P-384", "secp384r1": self = .p384
        default: return nil
        }
    }

    public var description: String { rawValue }
}
