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
        do {
            try fileSystem.createDirectories(directory)
        } catch {
            throw failure(error, directory)
        }
        let bytes = try writeLines(simulation, signer: signer, to: Path.join(directory, notifications), fileSystem)
        do {
            try fileSystem.writeFileDurably(Path.join(directory, trustRoot), signer.rootCertificateDER)
            try fileSystem.writeFileDurably(
                Path.join(directory, truth), simulation.truth.json.serializedBytes(.pretty) + [0x0A])
        } catch {
            throw failure(error, directory)
        }
        return SimulationReport(simulation: simulation, bytes: Int(bytes))
    }

    /// Signs and writes the notifications file piece by piece; returns its size.
    private static func writeLines<System: FileSystem>(
        _ simulation: Simulation, signer: SimulationSigner, to path: String, _ fileSystem: System
    ) throws(SimulationError) -> Int64 {
        let directory = Path.parent(of: path)
        var lines: DurableFileWriter<System>
        do {
            lines = try DurableFileWriter(path, in: fileSystem)
        } catch {
            throw failure(error, directory)
        }
        do throws(SimulationError) {
            try simulation.forEachJSONLines(signedWith: signer) { (piece) throws(SimulationError) in
                do throws(SystemError) {
                    try lines.append(piece)
                } catch {
                    throw failure(error, directory)
                }
            }
        } catch {
            lines.abandon()
            throw error
        }
        do {
            try lines.commit()
        } catch {
            throw failure(error, directory)
        }
        return lines.size
    }

    private static func failure(_ error: SystemError, _ directory: String) -> SimulationError {
        SimulationError(
            .io, "could not write the simulation into \(directory): \(error.message); check the path and free space",
            cause: error)

    }
}
