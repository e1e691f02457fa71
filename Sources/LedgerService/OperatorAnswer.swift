import LedgerCore
import LedgerJSON
import LedgerStore

/// What a link does to its subscription, as the ledger answers once it is recorded
/// (``Ledger/linkEffect(originalTransactionId:owner:)``).
public struct LinkEffect: Sendable, Hashable {
    /// Who owns the subscription now (nobody: neither a user nor a token).
    public var owner: Subject
    /// Whether the ledger has records of the subscription.
    public var known: Bool
    /// Whether its owner now is the one the link names.
    public var linked: Bool
}

extension AppendOutcome {
    /// An operator command's answer (`ledger link`, `ledger correct`, `POST /v1/links`, `POST /v1/corrections`):
    /// `{"appended":true|false,"seq":N}`, and for a link `"owner":{"userId","appAccountToken"}` and `"linked"`.
    public func answer(link: LinkEffect? = nil) -> JSONObject {
        var object: JSONObject
        switch self {
        case .appended(let seq, _): object = ["appended": true, "seq": .integer(Int64(clamping: seq))]
        case .duplicate(let seq): object = ["appended": false, "seq": .integer(Int64(clamping: seq))]
        }
        if let link {
            object["owner"] = .object([
                "userId": .integer(link.owner.userId), "appAccountToken": .string(link.owner.appAccountToken),
            ])
            object["linked"] = .bool(link.linked)
        }
        return object
    }
}
