extension EntitlementFold {
    /// Who owns an Apple subscription: the `appAccountToken` on its transactions when any carries one (the
    /// latest signed wins), else the latest link record (by recordedAt, then idempotency key), else nobody
    /// (an orphan, reachable only by its original transaction id).
    ///
    /// Ownership does not depend on the valid time: a link says whose the subscription was all along. It
    /// depends on the knowledge limit, since a link recorded after it is not visible.
    static func owner(of group: Index.Group, in index: Index) -> Subject {
        var token: (signed: Instant, value: String)?
        var link: (recordedAt: Instant, key: String, index: Int)?
        for member in index.members[group.members] {
            if let value = index.entries[member].record.transaction?.appAccountToken {
                let signed = index.entries[member].record.transaction!.signedDate
                if let best = token, (best.signed, best.value) >= (signed, value) { continue }
                token = (signed, value)
            } else if index.entries[member].record.source == .link {
                let recordedAt = index.entries[member].recordedAt
                let key = index.entries[member].record.idempotencyKey
                if let best = link, (best.recordedAt, best.key) >= (recordedAt, key) { continue }
                link = (recordedAt, key, member)
            }
        }
        if let token { return owner(token: token.value, userId: nil) }
        if let link {
            let subject = index.entries[link.index].record.subject
            return owner(token: subject.appAccountToken, userId: subject.userId)
        }
        return Subject()
    }

    /// The owner named by a correction or link subject, normalised: both the token and the user id when the
    /// app's scheme relates them.
    static func owner(token: String?, userId: Int64?) -> Subject {
        let canonical = token.map { AccountToken.canonical($0) ?? $0 }
        let user = userId ?? canonical.flatMap(AccountToken.userId(fromToken:))
        return Subject(appAccountToken: canonical ?? user.flatMap(AccountToken.token(forUser:)), userId: user)
    }

    /// Whether an owner is the subject a user or account query asks about.
    static func owner(_ owner: Subject, matches query: SubjectQuery) -> Bool {
        switch query {
        case .user(let id):
            return owner.userId == id
        case .account(let uuid):
            guard let token = owner.appAccountToken else { return false }
            return token == (AccountToken.canonical(uuid) ?? uuid)
        case .originalTransaction:
            return false
        }
    }

    /// Whether two owners are the same user or account (for operator revokes addressed to a user).
    static func sameOwner(_ lhs: Subject, _ rhs: Subject) -> Bool {
        if let left = lhs.userId, let right = rhs.userId { return left == right }
        if let left = lhs.appAccountToken, let right = rhs.appAccountToken { return left == right }
        return false
    }

    /// The user id and token an entitlement state reports for a query.
    static func identity(of query: SubjectQuery) -> (userId: Int64?, token: String?) {
        switch query {
        case .user(let id):
            return (id, AccountToken.token(forUser: id))
        case .account(let uuid):
            let token = AccountToken.canonical(uuid) ?? uuid
            return (AccountToken.userId(fromToken: token), token)
        case .originalTransaction:
            return (nil, nil)
        }
    }
}
