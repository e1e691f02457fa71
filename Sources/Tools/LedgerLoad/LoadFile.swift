import LedgerJSON
import LedgerSystem
import LedgerTesting

/// Reads a whole file (a request body to replay).
func readFile(_ path: String) throws(LoadError) -> [UInt8] {
    guard let bytes = try? PosixFileSystem().readFile(path) else { throw LoadError("cannot open \(path)") }
    return bytes
}

/// The non-blank lines of a JSON Lines file, each a request body.
func readLines(_ path: String) throws(LoadError) -> [[UInt8]] {
    try readFile(path).split(separator: 10, omittingEmptySubsequences: true).map { Array($0) }
        .filter { !$0.allSatisfy { $0 == 32 || $0 == 13 } }
}

extension AcknowledgementLog {
    /// Opens the `--acks` file.
    static func open(_ path: String) throws(LoadError) -> AcknowledgementLog {
        do {
            return try AcknowledgementLog(path: path)
        } catch {
            throw LoadError("cannot open \(path) for acknowledgements: \(error.message)")
        }
    }

    /// Records a 200 for body `line`, with the seq its response named (a 200 without one is not acknowledged).
    func acknowledge(line: Int, response: [UInt8]) {
        guard let seq = (try? JSONValue.parse(response))?["seq"]?.int64.flatMap(UInt64.init(exactly:)) else { return }
        acknowledge(line: line, seq: seq)
    }
}
