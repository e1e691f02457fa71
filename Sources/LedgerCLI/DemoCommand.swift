import Dispatch
import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerLog
import LedgerService
import LedgerSimulator
import LedgerStore
import LedgerSystem

/// `ledger demo`: the whole product on realistic data, checked against the simulator's truth.
///
/// Simulates a population (1,000 users over 12 months by default), ingests its signed notifications with
/// Apple-style duplicates and late deliveries (except those of a ten-day webhook outage), recovers what the
/// outage withheld from an in-process App Store Server API as `reconcile --from-api` does, summarises the
/// ledger, shows one user's timeline, verifies the log, prints its digest, and checks every user against the
/// truth. Everything lives in `Events/demo`
/// (re-runnable: each run starts afresh).
enum DemoCommand: LedgerCommand {
    /// `--data DIR`: demo's own, defaulting to Events/demo.
    static let data = OptionSpec("--data", value: "DIR", "Where to run (default Events/demo).")
    /// `--users N`.
    static let users = OptionSpec("--users", value: "N", "Users (default 1000).")
    /// `--months M`.
    static let months = OptionSpec("--months", value: "M", "Months (default 12).")
    /// `--seed S`.
    static let seed = OptionSpec("--seed", value: "S", "Seed (default 42).")

    static let spec = CommandSpec(
        name: "demo", summary: "The end-to-end showcase in Events/demo.",
        usage: ["demo [--data DIR] [--users N] [--months M] [--seed S]"],
        options: [data, users, months, seed])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        HeapTuning.keepHeapForBatches()
        let clock = ContinuousClock()
        let started = clock.now
        let root = try context.value(Self.data) ?? "Events/demo"
        let users = Int(try context.integer(Self.users, in: 1...100_000) ?? 1000)
        let months = Int(try context.integer(Self.months, in: 1...60) ?? 12)
        let seedValue = try context.integer(Self.seed, in: 0...Int64.max) ?? 42
        let simulationDirectory = Path.join(root, "simulation")
        let dataDirectory = Path.join(root, "ledger")
        let fileSystem = PosixFileSystem()
        do {
            try fileSystem.removeTree(simulationDirectory)
            try fileSystem.removeTree(dataDirectory)
            try fileSystem.createDirectories(root)
        } catch {
            throw CLIError.failure("cannot prepare \(root): \(error.message)")
        }

        // 1. Simulate.
        let config = SimulationConfig(users: users, months: months, seed: UInt64(seedValue))
        let simulation: Simulation
        let signer: SimulationSigner
        let report: SimulationReport
        do {
            simulation = try Simulator(config: config).run()
            signer = try SimulationSigner(seed: config.seed)
            report = try SimulationFiles.write(simulation, signer: signer, to: simulationDirectory)
        } catch {
            throw CLIError(.internalError, "the simulation failed: \(error.message)")
        }
        // The webhook's outage: what it never received, kept by Apple for the recovery (section 2b).
        let outage = try DemoOutage(simulation: simulation, directory: simulationDirectory)
        Section.title("1. Simulated \(users) users over \(months) months (seed \(seedValue))")
        Terminal.line(
            "   \(report.notifications) signed notifications, \(report.deliveries) deliveries "
                + "(\(report.duplicates) Apple-style retries, \(report.outOfOrder) out of order) in \(simulationDirectory)"
        )

        // 2. Ingest, verifying every notification against the simulation's own root.
        let verifier: SignedDataVerifier
        do {
            verifier = try signer.verifier(for: config)
        } catch {
            throw CLIError(.internalError, "cannot build the verifier: \(error.message)")
        }
        let ledger: Ledger
        do {
            ledger = try Ledger.openWriter(
                at: dataDirectory, environment: config.environment,
                app: AppIdentity(
                    bundleId: config.bundleId, appAppleId: config.environment == .production ? config.appAppleId : nil))
        } catch {
            throw Commands.failure(error)
        }
        defer { ledger.close() }
        let pipeline = IngestPipeline(
            ledger: ledger, verifier: verifier, quarantine: Quarantine(dataDirectory: dataDirectory))
        let input = try LineBatches(
            path: outage.webhookPath, batchSize: IngestCommand.batchSize,
            lineLimit: IngestCommand.maxLineBytes)
        var counts = IngestCounts()
        let ingestStart = clock.now
        try IngestCommand.ingest(lines: input, into: pipeline, label: "   ingest", counts: &counts)
        let ingestSeconds = Section.seconds(clock.now - ingestStart)
        Section.title("2. Ingested into \(dataDirectory)")
        Terminal.line(
            "   \(counts.accepted) accepted, \(counts.duplicates) duplicates, \(counts.rejected) rejected in "
                + "\(Section.format(ingestSeconds)) s (\(Int(Double(counts.accepted + counts.duplicates) / max(ingestSeconds, 0.001))) notifications/s, "
                + "every one verified)")

        // 2b. Recover what the outage withheld from the demo's App Store Server API, twice.
        let recovery = try DemoRecovery.run(
            outage, ledger: ledger, verifier: verifier, dataDirectory: dataDirectory, margin: config.clock.days(1))
        DemoRecovery.print(recovery, outage: outage)

        // 3. Summary at the end of the simulated year.
        let end = config.end.adding(milliseconds: -1)
        do {
            try DemoSummary.print(ledger: ledger, config: config, at: end)
            try DemoTimeline.print(ledger: ledger, simulation: simulation, config: config)
        } catch {
            throw Commands.failure(error)
        }

        // 5. Verify and digest.
        let verified: VerifyReport
        do {
            verified = try EventLog.verify(
                at: dataDirectory, evidenceReferences: Ledger.evidenceReferences, readRecord: Ledger.recordReader())
        } catch {
            throw CLIError.failure(error.message)
        }
        Section.title("5. Verified the log")
        Terminal.line(
            "   \(verified.records) records in \(verified.segments) segment(s): "
                + (verified.ok
                    ? "checksums and hash chain intact, every record readable"
                    : "BROKEN: \(verified.problem?.message ?? "")"))
        Terminal.line(
            "   digest {\"seq\":\(verified.headSeq),\"head\":\"\(Hex.encode(verified.headHash))\",\"at\":\"\(Instant(milliseconds: verified.headTime).iso8601)\"}"
        )

        // 6. Every user against the truth.
        let check = DemoTruthCheck.run(ledger: ledger, truth: simulation.truth)
        Section.title("6. Checked every user against the simulator's truth")
        Terminal.line(
            "   \(check.usersMatched) / \(check.users) users match (\(Section.percent(check.usersMatched, check.users))), "
                + "\(check.orphansMatched) / \(check.orphans) orphan subscriptions, \(check.samples) sampled instants")
        for mismatch in check.mismatches.prefix(5) { Terminal.line("   mismatch: \(mismatch)") }
        Terminal.line("")
        Terminal.line("demo finished in \(Section.format(Section.seconds(clock.now - started))) s; data in \(root)")
        let passed = verified.ok && counts.rejected == 0 && recovery.passed && check.mismatches.isEmpty
        return passed ? 0 : 1
    }
}

/// Small formatting helpers for the demo's report.
enum Section {
    static func title(_ text: String) {
        Terminal.line("")
        Terminal.line(text)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func format(_ value: Double) -> String {
        String(Double(Int((value * 10).rounded())) / 10)
    }

    static func percent(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "100%" : format(Double(part) * 100 / Double(whole)) + "%"
    }
}
