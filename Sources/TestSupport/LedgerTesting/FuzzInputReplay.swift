import LedgerSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The replayer shared by the fuzz targets' SwiftPM builds: runs each file named on the command line through
/// `check`, as the fuzzer ran it, so a crashing input found by `Scripts/fuzz` becomes a reproducible command.
///
/// Prints `ok PATH (N bytes)` per input; exits 64 with `usage` when no file is named, and 1 when a file cannot be
/// read. An empty file is skipped, as libFuzzer's target skips empty inputs.
public func replayFuzzInputs(_ paths: some Collection<String>, usage: String, check: ([UInt8]) -> Void) {
    if paths.isEmpty {
        print("usage: \(usage)")
        exit(64)
    }
    for path in paths {
        guard let bytes = try? PosixFileSystem().readFile(path) else {
            print("error: cannot open \(path)")
            exit(1)
        }
        if !bytes.isEmpty { check(bytes) }
        print("ok \(path) (\(bytes.count) bytes)")
    }
}
