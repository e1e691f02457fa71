/// The App Store environment a record comes from. A data directory holds exactly one.
///
/// Kept as the raw string Apple sends (`Sandbox`, `Production`, `Xcode`, `LocalTesting`) so an
/// unknown value is stored, not rejected.
public struct LedgerEnvironment: Hashable, Sendable, CustomStringConvertible {
    /// Apple's spelling, e.g. `Sandbox`.
    public var rawValue: String

    /// Wraps Apple's raw value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Apple's sandbox.
    public static let sandbox = LedgerEnvironment(rawValue: "Sandbox")
    /// The live App Store.
    public static let production = LedgerEnvironment(rawValue: "Production")
    /// StoreKit testing in Xcode (unsigned in practice).
    public static let xcode = LedgerEnvironment(rawValue: "Xcode")
    /// Local StoreKit testing.
    public static let localTesting = LedgerEnvironment(rawValue: "LocalTesting")

    /// Parses the command-line spelling: `sandbox`, `production`, `xcode`, `local-testing`
    /// (Apple's own spellings are accepted too).
    public init?(argument: String) {
        switch argument.lowercased() {
        case "sandbox": self = .sandbox
        case "production": self = .production
        case "xcode": self = .xcode
        case "local-testing", "localtesting": self = .localTesting
        default: return nil
        }
    }

    /// The command-line spelling (`sandbox`, `production`, `xcode`, `local-testing`).
    public var argument: String {
        switch self {
        case .sandbox: return "sandbox"
        case .production: return "production"
        case .xcode: return "xcode"
        case .localTesting: return "local-testing"
        default: return rawValue
        }
    }

    public var description: String { rawValue }
}
