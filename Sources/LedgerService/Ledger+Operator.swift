import LedgerCore
import LedgerCrypto
import LedgerLog

/// Operator records: links and corrections. They never rewrite history; they are facts of their own,
/// appended with a content key so that running the same command twice appends once.
extension Ledger {
    /// Appends a link of a subscription to a user or account.
    public func link(
        originalTransactionId: String, to owner: SubjectQuery, reason: String, operatorName: String
    ) throws(ServiceError) -> AppendOutcome {
        let subject: Subject
        switch owner {
        case .user(let id):
            subject = Subject(
                originalTransactionId: originalTransactionId, appAccountToken: AccountToken.token(forUser: id),
                userId: id)
        case .account(let token):
            subject = Subject(originalTransactionId: originalTransactionId, appAccountToken: token)
        case .originalTransaction:
            throw ServiceError(.invalidInput, "a link attaches a subscription to a user or an account token")
        }
        let key = Self.operatorKey(["link", originalTransactionId, subject.appAccountToken ?? "", reason, operatorName])
        let record = LedgerRecord(
            environment: try boundEnvironment(), source: .link, idempotencyKey: key, subject: subject,
            link: Link(reason: reason, operatorName: operatorName))
        return try append([(record, nil)])[0]
    }

    /// What a link to `owner` does to subscription `originalTransactionId`, as the ledger now answers: who owns it
    /// (the appAccountToken on its transactions, else its latest link; nobody for an orphan or a subscription it
    /// has no record of), whether the ledger has records of it, and whether its owner is `owner`. A link to a
    /// subscription whose transactions carry a token is recorded but changes nothing while they do: `ledger link`
    /// and `POST /v1/links` say so.
    public func linkEffect(originalTransactionId: String, owner: SubjectQuery) throws(ServiceError) -> LinkEffect {
        let state = try state(of: .originalTransaction(originalTransactionId), at: .distantFuture, knownAt: nil)
        let now = Subject(appAccountToken: state.appAccountToken, userId: state.userId)
        return LinkEffect(
            owner: now, known: state.subscriptions.contains { $0.originalTransactionId == originalTransactionId },
            linked: now.matches(owner))
    }

    /// Appends a correction for a subject. A grant must name a product of the catalog (it gives that product's
    /// devices; an unknown one would give none): otherwise ``ServiceError/Code/invalidInput`` and nothing is
    /// appended.
    public func correct(_ query: SubjectQuery, action: Correction.Action, reason: String, operatorName: String)
        throws(ServiceError) -> AppendOutcome
    {
        if case .grant(let product, _, _) = action, catalog.product(id: product) == nil {
            throw ServiceError(
                .invalidInput,
                "'\(product)' is not a product of the catalog: a grant gives a known product's devices")
        }
        let subject: Subject
        switch query {
        case .user(let id): subject = Subject(appAccountToken: AccountToken.token(forUser: id), userId: id)
        case .account(let token): subject = Subject(appAccountToken: token)
        case .originalTransaction(let otid): subject = Subject(originalTransactionId: otid)
        }
        var parts = ["correction", "\(query)", reason, operatorName]
        switch action {
        case .grant(let product, let from, let until):
            parts += ["grant", product, "\(from.milliseconds)", "\(until.milliseconds)"]
        case .revoke(let from): parts += ["revoke", "\(from.milliseconds)"]
        }
        let record = LedgerRecord(
            environment: try boundEnvironment(), source: .correction, idempotencyKey: Self.operatorKey(parts),
            subject: subject, correction: Correction(action: action, reason: reason, operatorName: operatorName))
        return try append([(record, nil)])[0]
    }

    func boundEnvironment() throws(ServiceError) -> LedgerEnvironment {
        guard let environment else {
            throw ServiceError(
                .invalidInput,
                "the data directory \(log.path) holds no records yet, so it has no environment to correct")
        }
        return environment
    }

    static func operatorKey(_ parts: [String]) -> String {
        var bytes: [UInt8] = []
        for part in parts {
            bytes.append(contentsOf: part.utf8)
            bytes.append(0)
        }
        return "\(parts[0]):" + Hex.encode(SHA256.hash(bytes).prefix(16))
    }
}
