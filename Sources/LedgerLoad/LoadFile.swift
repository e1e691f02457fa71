#if canImport(Glibc)
    import Glibc
#endif

/// Reads a whole file (a request body to replay).
func readFile(_ path: String) throws(LoadError) -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw LoadError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
}

/// Starts a joinable thread.
func startThread(_ body: @escaping @Sendable () -> Void) -> pthread_t {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    var thread = pthread_t()
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    let status = pthread_create(
        &thread, nil,
        {
            Unmanaged<Box>.fromOpaque($0!).takeRetainedValue().body()
            return nil
        }, context)
    precondition(status == 0, "pthread_create failed: \(status)")
    return thread
}

/// Nanoseconds on the monotonic clock.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}
