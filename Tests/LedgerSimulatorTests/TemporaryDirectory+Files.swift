import LedgerSystem
import LedgerTesting

extension TemporaryDirectory {
    /// The bytes of a file in the directory, nil when it cannot be read.
    func read(_ name: String) -> [UInt8]? {
        try? PosixFileSystem().readFile(path + "/" + name)
    }

    /// The non-empty lines of a file's bytes.
    static func lines(_ bytes: [UInt8]?) -> [[UInt8]]? {
        bytes.map { $0.split(separator: 0x0A).map(Array.init) }
    }
}
