import LedgerAppStore
import LedgerCore
import LedgerJSON
import Testing

@testable import LedgerSimulator

/// The simulator's truth is computed from its own model; the ledger's fold reads only the signed
/// notifications. Verified with the real verifier, mapped to records, delivered shuffled and with Apple's
/// duplicates, the fold must state every sample of the truth.
@Test(arguments: [LedgerEnvironment.production, .sandbox])
func theFoldOfTheSignedNotificationsStatesTheTruth(environment: LedgerEnvironment) throws {
    let config = SimulationConfig(users: 40, months: 12, seed: 314, environment: environment)
    let simulation = try Simulator(config: config).run()
    let signer = try SimulationSigner(seed: config.seed)
    let bodies = try simulation.signedBodies(with: signer)
    let verifier = try signer.verifier(for: config)

    var deliveries = simulation.deliveries
    var random = SimulationRandom(seed: 2718)
    deliveries.shuffle(using: &random)
    var entries: [LedgerEntry] = []
    for (index, delivery) in deliveries.enumerated() {
        let verified = try verifier.verifyNotification(body: bodies[delivery.notification])
        let decoded = try DecodedNotification(verified)
        let record = try LedgerRecord(
            notification: decoded.notification, transaction: decoded.transaction, renewal: decoded.renewal,
            evidence: nil)
        entries.append(LedgerEntry(seq: UInt64(index + 1), recordedAt: delivery.deliveredAt, record: record))
    }
    #expect(entries.count > simulation.notifications.count)
    // As the ledger's index does: each subject's entries (the fold takes any superset).
    let byUser = Dictionary(grouping: entries) { $0.record.subject.userId ?? -1 }
    let bySubscription = Dictionary(grouping: entries) { $0.record.subject.originalTransactionId ?? "" }

    let fold = EntitlementFold(catalog: config.catalog)
    var compared = 0
    for user in simulation.truth.users {
        for sample in user.samples {
            let state = fold.state(
                of: .user(user.userId), entries: byUser[user.userId] ?? [], at: sample.at, knownAt: nil)
            #expect(state.deviceLimit == sample.deviceLimit, "user \(user.userId) at \(sample.at)")
            if let status = sample.status { #expect(state.status == status, "user \(user.userId) at \(sample.at)") }
            compared += 1
        }
    }
    for orphan in simulation.truth.orphans {
        for sample in orphan.samples {
            let query = SubjectQuery.originalTransaction(orphan.originalTransactionId)
            let state = fold.state(
                of: query, entries: bySubscription[orphan.originalTransactionId] ?? [], at: sample.at, knownAt: nil)
            #expect(state.deviceLimit == sample.deviceLimit, "orphan \(orphan.originalTransactionId) at \(sample.at)")
        }
    }
    #expect(compared > 1000)
}
