import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body(index)` on `count` POSIX threads and waits for all of them.
func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Work: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    var threads: [pthread_t] = []
    for index in 0..<count {
        var thread = pthread_t()
        let work = Unmanaged.passRetained(Work { body(index) }).toOpaque()
        let status = pthread_create(
            &thread, nil,
            {
                Unmanaged<Work>.fromOpaque($0!).takeRetainedValue().run()
                return nil
            }, work)
        precondition(status == 0, "pthread_create failed: \(status)")
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// Writes a line to standard output.
func printLine(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}
