import LedgerAppStore
import LedgerCore
import LedgerService
import LedgerSimulator
import LedgerTesting
import Testing

/// A small simulated population, signed, delivered shuffled with Apple's retries through the real ingest
/// (verification, mapping, the durable log), answers every sample of the simulator's independent truth.
@Suite struct SimulatedPopulationTests {
    @Test(arguments: [LedgerEnvironment.production, .sandbox])
    func ingestedPopulationMatchesTheTruth(environment: LedgerEnvironment) throws {
        let config = SimulationConfig(users: 60, months: 6, seed: 7, environment: environment)
        let simulation = try Simulator(config: config).run()
        let signer = try SimulationSigner(seed: config.seed)
        var bodies = try simulation.deliveredBodies(signedWith: signer)
        var random = SeededRandom(seed: 99)
        bodies.shuffle(using: &random)
        bodies += bodies.prefix(bodies.count / 5)  // more retries, after everything else

        let directory = TemporaryDirectory()
        let ledger = try Ledger.openWriter(at: directory.path, environment: environment)
        defer { ledger.close() }
        let verifier = try signer.verifier(for: config)
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: directory.path))
        var counts = IngestCounts()
        for start in stride(from: 0, to: bodies.count, by: 500) {
            for result in try pipeline.ingest(bodies: Array(bodies[start..<min(start + 500, bodies.count)])) {
                counts.add(result)
            }
        }
        #expect(counts.rejected == 0)
        #expect(counts.accepted == simulation.notifications.count, "one record per distinct notification")
        #expect(ledger.head.seq == UInt64(simulation.notifications.count))

        var samples = 0
        for user in simulation.truth.users {
            let entries = try ledger.entries(for: .user(user.userId))
            for sample in user.samples {
                let state = ledger.fold.state(of: .user(user.userId), entries: entries, at: sample.at, knownAt: nil)
                #expect(state.deviceLimit == sample.deviceLimit, "user \(user.userId) at \(sample.at)")
                if let status = sample.status { #expect(state.status == status, "user \(user.userId) at \(sample.at)") }
                samples += 1
            }
        }
        for orphan in simulation.truth.orphans {
            for sample in orphan.samples {
                let state = try ledger.state(
                    of: .originalTransaction(orphan.originalTransactionId), at: sample.at, knownAt: nil)
                #expect(
                    state.deviceLimit == sample.deviceLimit, "orphan \(orphan.originalTransactionId) at \(sample.at)")
            }
        }
        #expect(samples > 500)
    }
}
