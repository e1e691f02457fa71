import LedgerJSON
import LedgerSystem

/// The files `ledger simulate` writes into its output directory.
///
/// * `notifications.jsonl` — one `{"signedPayload":"…"}` per line in delivery order (duplicates included), as
///   `ledger ingest` reads them.
/// * `trust-root.der` — the test PKI's root certificate, for `--trust-root`.
/// * `truth.json` — the expected states (see ``Truth/json``).
public enum SimulationFiles {
    /// The signed notifications, one request body per line.
    public static let notifications = "notifications.jsonl"
    /// The root certificate (DER).
    public static let trustRoot = "trust-root.der"
    /// The truth.
    public static let truth = "truth.json"

    /// Signs the simulation and writes the three files durably into `directory` (created when missing).
    @discardableResult
    public static func write(
        _ simulation: Simulation, signer: SimulationSigner, to directory: String,
        fileSystem: some FileSystem = PosixFileSystem()
    ) throws(SimulationError) -> SimulationReport {
        let lines = try simulation.jsonLines(signedWith: signer)
        let truthBytes = simulation.truth.json.serializedBytes(.pretty) + [0x0A]
        do {
            try fileSystem.createDirectories(directory)
            try fileSystem.writeFileDurably(Path.join(directory, notifications), lines)
            try fileSystem.writeFileDurably(Path.join(directory, trustRoot), signer.rootCertificateDER)
            try fileSystem.writeFileDurably(Path.join(directory, truth), truthBytes)
        } catch {
            throw SimulationError(
                .io,
                "could not write the simulation into \(directory): \(error.message); check the path and free space",
                cause: error)
        }
        return SimulationReport(simulation: simulation, bytes: lines.count)
    }
}
