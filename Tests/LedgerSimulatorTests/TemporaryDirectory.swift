#if canImport(Glibc)
    import Glibc
#endif

/// A fresh directory under /tmp for one test, removed (with its files) when the test ends.
final class TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/ledger-simulator-test-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(created != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of a file in the directory, nil when it cannot be read.
    func read(_ name: String) -> [UInt8]? {
        let fd = open(path + "/" + name, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// The non-empty lines of a file's bytes.
    static func lines(_ bytes: [UInt8]?) -> [[UInt8]]? {
        bytes.map { $0.split(separator: 0x0A).map(Array.init) }
    }

    deinit {
        Self.remove(path)
    }

    /// Removes a directory tree.
    private static func remove(_ path: String) {
        guard let directory = opendir(path) else {
            unlink(path)
            return
        }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        for name in names { remove(path + "/" + name) }
        rmdir(path)
    }
}
