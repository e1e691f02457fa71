import LedgerCore

extension Subject {
    /// Whether this subject is the one a query names.
    public func matches(_ query: SubjectQuery) -> Bool {
        switch query {
        case .user(let id): return userId == id
        case .account(let token):
            if let id = AccountToken.userId(fromToken: token) { return userId == id }
            return appAccountToken == token
        case .originalTransaction(let otid): return originalTransactionId == otid
        }
    }
}
