import LedgerCore
import LedgerJSON

extension Truth {
    /// The `truth.json` document:
    ///
    /// ```
    /// {"environment":"Production","start":"…","end":"…","semantics":"…",
    ///  "users":[{"userId":42,"appAccountToken":"0000002a-…","profile":"subscriber",
    ///            "originalTransactionIds":["…"],
    ///            "samples":[{"at":"2026-01-08T12:00:00Z","deviceLimit":3,"status":"active"}, …]}],
    ///  "orphans":[{"originalTransactionId":"…","userId":7,"samples":[…]}]}
    /// ```
    /// `at` is ISO 8601 UTC; `status` is a contract status (`none` … `revoked`) or `null` where two
    /// readings are defensible.
    public var json: JSONValue {
        .object([
            "environment": .string(environment.rawValue),
            "start": .string(start.iso8601),
            "end": .string(end.iso8601),
            "semantics": .string(Self.semantics),
            "users": .array(
                users.map { user in
                    .object([
                        "userId": .integer(user.userId),
                        "appAccountToken": .string(user.appAccountToken),
                        "profile": .string(user.profile.rawValue),
                        "originalTransactionIds": .array(user.originalTransactionIds.map(JSONValue.string)),
                        "samples": .array(user.samples.map(\.json)),
                    ])
                }),
            "orphans": .array(
                orphans.map { orphan in
                    .object([
                        "originalTransactionId": .string(orphan.originalTransactionId),
                        "userId": .integer(orphan.userId),
                        "samples": .array(orphan.samples.map(\.json)),
                    ])
                }),
        ])
    }

    /// The semantics line written into `truth.json`.
    static let semantics =
        "state --at T with everything known: deviceLimit sums devices over subscriptions active or in grace; "
        + "refunds and revokes count from revocationDate; upgrades are immediate, downgrades start at the next "
        + "renewal; expiresDate is exclusive; status null where two readings are defensible"

    /// Reads a `truth.json` document back.
    public init(json: JSONValue) throws(SimulationError) {
        func fail(_ what: String) -> SimulationError {
            SimulationError(.invalidConfiguration, "truth.json: \(what)")
        }
        guard let env = json["environment"]?.string, let start = json["start"]?.string.flatMap(Instant.init(parsing:)),
            let end = json["end"]?.string.flatMap(Instant.init(parsing:)), let users = json["users"]?.array,
            let orphans = json["orphans"]?.array
        else { throw fail("missing environment, start, end, users or orphans") }
        var userTruths: [UserTruth] = []
        for user in users {
            guard let id = user["userId"]?.int64, let token = user["appAccountToken"]?.string,
                let profile = user["profile"]?.string.flatMap(UserProfile.init(rawValue:)),
                let otids = user["originalTransactionIds"]?.array, let samples = user["samples"]?.array
            else { throw fail("a user lacks userId, appAccountToken, profile, originalTransactionIds or samples") }
            userTruths.append(
                UserTruth(
                    userId: id, appAccountToken: token, profile: profile,
                    originalTransactionIds: otids.compactMap(\.string),
                    samples: try samples.map(TruthSample.init(json:))))
        }
        var orphanTruths: [OrphanTruth] = []
        for orphan in orphans {
            guard let otid = orphan["originalTransactionId"]?.string, let id = orphan["userId"]?.int64,
                let samples = orphan["samples"]?.array
            else { throw fail("an orphan lacks originalTransactionId, userId or samples") }
            orphanTruths.append(
                OrphanTruth(originalTransactionId: otid, userId: id, samples: try samples.map(TruthSample.init(json:))))
        }
        self.init(
            environment: LedgerEnvironment(rawValue: env), start: start, end: end, users: userTruths,
            orphans: orphanTruths)
    }
}

extension TruthSample {
    /// `{"at":"…","deviceLimit":N,"status":"…"|null}`.
    public var json: JSONValue {
        .object(["at": .string(at.iso8601), "deviceLimit": .int(deviceLimit), "status": .string(status?.rawValue)])
    }

    /// Reads a sample back.
    public init(json: JSONValue) throws(SimulationError) {
        guard let at = json["at"]?.string.flatMap(Instant.init(parsing:)), let limit = json["deviceLimit"]?.int64 else {
            throw SimulationError(.invalidConfiguration, "truth.json: a sample lacks at or deviceLimit")
        }
        let status = json["status"]?.string.flatMap(EntitlementStatus.init(rawValue:))
        self.init(at: at, deviceLimit: Int(limit), status: status)
    }
}
