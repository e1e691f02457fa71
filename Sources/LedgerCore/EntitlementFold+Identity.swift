extension EntitlementFold {
    /// Who owns an Apple subscription: the `appAccountToken` on its transactions when any carries one (the
    /// latest signed wins), else the latest link record (by recordedAt, then idempotency key), else nobody
    /// (an orphan, reachable only by its original transaction id).
    ///
    /// Ownership does not depend on the valid time: a link says whose the subscription was all along. It
    /// depends on the knowledge limit, since a link recorded after it is not visible.
    static func owner(of group: Index.Group, in index: Index) -> Subject {
        let texts = index.texts
        var token: (signed: Instant, value: FoldText)?
        var link: (recordedAt: Instant, key: FoldText, index: Int)?
        for member in index.members[group.members] {
            if let value = index.facts[member].token {
                let signed = index.facts[member].transactionSigned
                // The latest signed; among equals, the greatest token.
                if let best = token,
                    best.signed > signed || (best.signed == signed && !texts.precedes(best.value, value))
                {
                    continue
                }
                token = (signed, value)
            } else if index.facts[member].isLink {
                let (recordedAt, key) = (index.facts[member].recordedAt, index.facts[member].key)
                if let best = link,
                    best.recordedAt > recordedAt || (best.recordedAt == recordedAt && !texts.precedes(best.key, key))
                {
                    continue
                }
                link = (recordedAt, key, index.facts[member].entry)
            }
        }
        if let token {
            // Transaction tokens are canonical already (TransactionFacts canonicalises them).
            let value = texts.string(token.value)
            return Subject(appAccountToken: nil, userId: AccountToken.userId(fromToken: value)).with(token: value)
        }
        if let link {
            let subject = index.record(link.index).subject
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

    /// Whether an owner is the subject a user or account query asks about (an account query's UUID in
    /// canonical form).
    static func owner(_ owner: Subject, matches query: SubjectQuery) -> Bool {
        switch query {
        case .user(let id):
            return owner.userId == id
        case .account(let token):
            return owner.appAccountToken == token
        case .originalTransaction:
            return false
        }
    }

    /// The query with an account UUID in canonical form, so matching compares strings directly.
    static func canonical(_ query: SubjectQuery) -> SubjectQuery {
        if case .account(let uuid) = query, let canonical = AccountToken.canonical(uuid) { return .account(canonical) }
        return query
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

extension Subject {
    /// This subject with another token, the user id unchanged.
    fileprivate func with(token: String) -> Subject {
        var copy = self
        copy.appAccountToken = token
        return copy
    }
}
