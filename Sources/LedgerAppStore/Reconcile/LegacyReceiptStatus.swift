/// The `status` of a legacy `verifyReceipt` response, with Apple's meaning for each value.
public struct LegacyReceiptStatus: Hashable, Sendable, CustomStringConvertible {
    /// Apple's number.
    public var rawValue: Int64
    /// Wraps any status.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// 0: the receipt is valid (an expired subscription inside a valid receipt still gives 0).
    public static let valid = Self(rawValue: 0)
    /// 21006: the receipt is valid but the subscription has expired; the receipt is still decoded.
    public static let subscriptionExpired = Self(rawValue: 21006)
    /// 21007: a sandbox receipt was sent to the production endpoint.
    public static let sandboxReceiptSentToProduction = Self(rawValue: 21007)
    /// 21008: a production receipt was sent to the sandbox endpoint.
    public static let productionReceiptSentToSandbox = Self(rawValue: 21008)

    /// Whether the response holds decoded receipt data the ledger imports: 0 and 21006.
    public var isAccepted: Bool { self == .valid || self == .subscriptionExpired }

    /// The number.
    public var description: String { String(rawValue) }

    /// Apple's meaning, and what to do about it.
    public var meaning: String {
        switch rawValue {
        case 0: return "valid receipt"
        case 21000: return "the request to the App Store was not an HTTP POST or its JSON was unreadable"
        case 21001: return "a status the App Store no longer sends"
        case 21002: return "the receipt data was malformed or the service had a temporary issue; request it again"
        case 21003: return "the receipt could not be authenticated"
        case 21004: return "the shared secret does not match the account's shared secret"
        case 21005: return "the receipt server was temporarily unavailable; request it again"
        case 21006: return "valid receipt, but the subscription has expired"
        case 21007:
            return "sandbox receipt sent to production; verify it at https://sandbox.itunes.apple.com/verifyReceipt "
                + "and import that response"
        case 21008:
            return "production receipt sent to the sandbox; verify it at https://buy.itunes.apple.com/verifyReceipt "
                + "and import that response"
        case 21009: return "internal data access error at Apple; request it again"
        case 21010: return "the user account cannot be found or has been deleted"
        case 21100...21199: return "internal data access error at Apple; request it again later"
        default: return "a status Apple does not document"
        }
    }
}
