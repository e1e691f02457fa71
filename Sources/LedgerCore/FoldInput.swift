/// The entries a fold may see, de-duplicated and grouped: per subscription, operator grants and
/// revocations, and links. Built once per fold call.
struct FoldInput {
    /// Entries of each subscription (by original transaction id), each group sorted by seq.
    var subscriptions: [(String, [LedgerEntry])] = []
    /// Operator grants, as synthetic subscriptions.
    var grants: [CorrectionGrant] = []
    /// Operator revocations with their subjects.
    var revokes: [(subject: Subject, from: Instant)] = []
    /// The latest link of each subscription.
    var links: [String: LedgerEntry] = [:]

    init(entries: some Collection<LedgerEntry>, knownAt: Instant?) {
        // De-duplicate by idempotency key, keeping the lowest seq: the same record delivered twice counts once.
        var unique: [String: LedgerEntry] = [:]
        unique.reserveCapacity(entries.count)
        for entry in entries {
            if let knownAt, entry.recordedAt > knownAt { continue }
            let key = entry.record.idempotencyKey
            if let existing = unique[key], existing.seq <= entry.seq { continue }
            unique[key] = entry
        }
        var groups: [String: [LedgerEntry]] = [:]
        for entry in unique.values {
            let record = entry.record
            if let correction = record.correction {
                switch correction.action {
                case .grant(let productId, let from, let until):
                    grants.append(
                        CorrectionGrant(
                            id: "correction:" + record.idempotencyKey, productId: productId, from: from, until: until,
                            subject: record.subject, seq: entry.seq))
                case .revoke(let from):
                    revokes.append((record.subject, from))
                }
                continue
            }
            if record.link != nil {
                if let otid = record.subject.originalTransactionId {
                    if let current = links[otid], !Self.isLater(entry, than: current) { continue }
                    links[otid] = entry
                }
                continue
            }
            guard
                let otid = record.transaction?.originalTransactionId ?? record.renewal?.originalTransactionId
                    ?? record.subject.originalTransactionId
            else { continue }
            groups[otid, default: []].append(entry)
        }
        subscriptions = groups.map { ($0.key, $0.value.sorted { $0.seq < $1.seq }) }
        // Grants whose subject is a subscription belong to that subscription's owner.
        for index in grants.indices {
            if let otid = grants[index].subject.originalTransactionId, grants[index].subject.userId == nil,
                grants[index].subject.appAccountToken == nil
            {
                grants[index].targetSubscription = otid
                grants[index].owner = owner(of: otid, group: groups[otid] ?? [])
            } else {
                grants[index].owner = grants[index].subject
            }
        }
    }

    /// Links are ordered by recorded time, then idempotency key.
    static func isLater(_ a: LedgerEntry, than b: LedgerEntry) -> Bool {
        (a.recordedAt, a.record.idempotencyKey) > (b.recordedAt, b.record.idempotencyKey)
    }

    /// Whom a subscription belongs to: the latest operator link if any; else the account token of its
    /// latest signed transaction that carries one; else the token of any record about it; else nobody.
    func owner(of otid: String, group: [LedgerEntry]) -> Subject {
        if let link = links[otid] {
            return Subject(appAccountToken: link.record.subject.appAccountToken, userId: link.record.subject.userId)
        }
        var best: (signed: Instant, key: String, token: String)?
        for entry in group {
            guard let transaction = entry.record.transaction, let token = transaction.appAccountToken else { continue }
            let candidate = (transaction.signedDate, entry.record.idempotencyKey, token)
            if best == nil || (candidate.0, candidate.1) > (best!.signed, best!.key) { best = candidate }
        }
        if let best { return Subject(appAccountToken: best.token) }
        let tokens = group.compactMap { $0.record.subject.appAccountToken }.sorted()
        if let token = tokens.last { return Subject(appAccountToken: token) }
        let users = group.compactMap { $0.record.subject.userId }.sorted()
        if let user = users.last { return Subject(userId: user) }
        return Subject()
    }

    /// The instants from which operator revocations end the grants of a subscription (or a grant) owned by
    /// `owner`: revocations naming the subscription, or naming its owner.
    func revocations(forSubscription otid: String?, owner: Subject) -> [Instant] {
        revokes.compactMap { revoke in
            let subject = revoke.subject
            if let target = subject.originalTransactionId, subject.userId == nil, subject.appAccountToken == nil {
                return target == otid ? revoke.from : nil
            }
            if let user = subject.userId, user == owner.userId { return revoke.from }
            if subject.userId == nil, let token = subject.appAccountToken, token == owner.appAccountToken {
                return revoke.from
            }
            return nil
        }.sorted()
    }
}

/// An operator's grant: a synthetic subscription over `[from, until)`.
struct CorrectionGrant {
    var id: String
    var productId: String
    var from: Instant
    var until: Instant
    var subject: Subject
    var seq: UInt64
    var targetSubscription: String?
    var owner = Subject()
}
