import LedgerCore

/// The log's subject-index keys: `u:<userId>`, `a:<token>` (tokens outside the app's user scheme) and
/// `o:<originalTransactionId>`; catalog versions under `c:catalog`.
public enum SubjectKeys {
    /// Every key a record is indexed under.
    public static func keys(for record: LedgerRecord) -> [String] {
        // Catalog versions are found together, under one key of their own (``Ledger/catalogKey``).
        if record.catalog != nil { return [Ledger.catalogKey] }
        var keys: [String] = []
        let subject = record.subject
        if let id = subject.userId {
            keys.append(user(id))
        } else if let token = subject.appAccountToken {
            keys.append(account(token))
        }
        if let otid = subject.originalTransactionId {
            keys.append(subscription(otid))
        }
        if let otid = record.transaction?.originalTransactionId, otid != subject.originalTransactionId {
            keys.append(subscription(otid))
        }
        return keys
    }

    /// The key a query starts from. An account token of the user scheme is that user.
    public static func key(for query: SubjectQuery) -> String {
        switch query {
        case .user(let id): return user(id)
        case .account(let token):
            if let id = AccountToken.userId(fromToken: token) { return user(id) }
            return account(token)
        case .originalTransaction(let otid): return subscription(otid)
        }
    }

    /// The key of a user.
    public static func user(_ id: Int64) -> String { "u:\(id)" }
    /// The key of an account token outside the user scheme.
    public static func account(_ token: String) -> String { "a:\(token)" }
    /// The key of a subscription.
    public static func subscription(_ otid: String) -> String { "o:\(otid)" }

    /// The original transaction id a key names, when it is a subscription key.
    public static func originalTransactionId(of key: String) -> String? {
        key.hasPrefix("o:") ? String(key.dropFirst(2)) : nil
    }
}
