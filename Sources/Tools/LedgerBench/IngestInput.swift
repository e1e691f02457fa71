import LedgerAppStore
import LedgerCore
import LedgerSimulator

/// The ingest rows' input: every notification of a simulated population, signed once (distinct bodies, as
/// Apple POSTs them), and a verifier that trusts the simulation's root, as `ledger ingest` configures it (the
/// envelope and every nested JWS verified whole).
struct IngestInput {
    let bodies: [[UInt8]]
    let verifier: SignedDataVerifier
    let environment: LedgerEnvironment

    init(users: Int, months: Int) throws {
        let config = SimulationConfig(users: users, months: months, seed: 7)
        let simulation = try Simulator(config: config).run()
        let signer = try SimulationSigner(seed: config.seed)
        bodies = try simulation.signedBodies(with: signer)
        environment = config.environment
        verifier = try signer.verifier(for: config)
    }

    /// The bodies of run `run` out of `runs`: a different slice each run (no body is verified twice in a row).
    func slice(run: Int, runs: Int, limit: Int) -> ArraySlice<[UInt8]> {
        let size = min(limit, bodies.count / max(1, runs))
        let start = (run % max(1, runs)) * size
        return bodies[start..<(start + size)]
    }
}
