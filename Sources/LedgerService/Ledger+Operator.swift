import LedgerCore
import LedgerCrypto
import LedgerStore

/// Operator records: links, corrections and voids. They never rewrite history; they are facts of their own,
/// appended with a content key so that running the same command twice appends once.
extension Ledger {
    /// Appends a link of a subscription to a user or account.
    ///
    /// Refused, nothing appended: a subscription the ledger holds no record of (``ServiceError/Code/notFound``),
    /// and one owned by another user or account unless `reassign` says the move is meant
    /// (``ServiceError/Code/conflict``, naming the owner). A reassigning link names the previous owner
    /// (``Link/previousOwner``).
    public func link(
        originalTransactionId: String, to owner: SubjectQuery, reason: String, operatorName: String,
        reassign: Bool = false
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
        let current = try state(of: .originalTransaction(originalTransactionId), at: .distantFuture, knownAt: nil)
        guard let known = current.subscriptions.first(where: { $0.originalTransactionId == originalTransactionId })
        else {
            throw ServiceError(
                .notFound,
                "the ledger has no record of subscription \(originalTransactionId); check the original transaction id "
                    + "(a link attaches a subscription the ledger has seen). Nothing was appended")
        }
        let previous = Subject(appAccountToken: current.appAccountToken, userId: current.userId)
        let owned = previous.userId != nil || previous.appAccountToken != nil
        let moves = owned && !previous.matches(owner)
        if moves, !reassign {
            throw ServiceError(
                .conflict,
                "subscription \(originalTransactionId) belongs to \(Self.describe(previous)); moving it to "
                    + "\(Self.describe(owner)) needs --reassign (\"reassign\":true over HTTP). Nothing was appended")
        }
        var parts = ["link", originalTransactionId, subject.appAccountToken ?? "", reason, operatorName]
        if moves {
            // A move names its owner and the subscription's last record then: moving it back and forth again with
            // the same words is another move, not a duplicate of the first.
            parts += [
                "from", previous.appAccountToken ?? "", previous.userId.map { "\($0)" } ?? "", "\(known.lastSeq)",
            ]
        }
        let record = LedgerRecord(
            environment: try boundEnvironment(), source: .link, idempotencyKey: Self.operatorKey(parts),
            subject: subject,
            link: Link(reason: reason, operatorName: operatorName, previousOwner: moves ? previous : nil))
        return try append([(record, nil)])[0]
    }

    /// A user or account, as messages name it.
    static func describe(_ owner: Subject) -> String {
        if let user = owner.userId { return "user \(user)" }
        return owner.appAccountToken.map { "account \($0)" } ?? "nobody"
    }

    /// A user or account query, as messages name it.
    static func describe(_ query: SubjectQuery) -> String {
        switch query {
        case .user(let id): return "user \(id)"
        case .account(let token): return "account \(token)"
        case .originalTransaction(let otid): return "subscription \(otid)"
        }
    }

    /// Appends a void of record `seq`: from its recording time on, the fold leaves record `seq` out of every
    /// answer (as known before it, the record still counts). The void's subject is the voided record's, so the
    /// subject's queries and component find it; its key is `void:<seq>`, so a second void of the same record is a
    /// duplicate (``AppendOutcome/duplicate(seq:)``, the first void's seq), nothing appended.
    ///
    /// - Throws: ``ServiceError`` `notFound` for a seq of 0 or beyond the head ("no record N; the log's head is
    ///   M"), `conflict` for a seq that is itself a void; nothing is appended.
    public func void(seq: UInt64, reason: String, operatorName: String) throws(ServiceError) -> AppendOutcome {
        let head = log.head.seq
        guard seq >= 1, seq <= head else {
            throw ServiceError(.notFound, "no record \(seq); the log's head is \(head). Nothing was appended")
        }
        let target = try entry(seq: seq).record
        if target.source == .void || target.void != nil {
            throw ServiceError(
                .conflict,
                "record \(seq) is itself a void (of record \(target.void.map { "\($0.seq)" } ?? "?")): a void cannot be "
                    + "voided. Nothing was appended")
        }
        var subject = target.subject
        if subject.originalTransactionId == nil {
            subject.originalTransactionId =
                target.transaction?.originalTransactionId ?? target.renewal?.originalTransactionId
        }
        let record = LedgerRecord(
            environment: target.environment, source: .void, idempotencyKey: Voiding.idempotencyKey(voiding: seq),
            subject: subject, void: Voiding(seq: seq, reason: reason, operatorName: operatorName))
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
        if case .grant(let product, let from, _) = action, fold.catalogs.catalog(at: from).product(id: product) == nil {
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
                "the data directory \(log.opening.path) holds no records yet, so it has no environment to correct")
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
