#if canImport(Glibc)
    import Glibc
#endif

/// The processors online (at least 1): how many threads CPU-bound work is spread over.
public var onlineProcessorCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

/// The stack size of the threads the ledger starts (ingest's workers, the HTTP server's connections): 8 MiB,
/// the main thread's usual stack, set explicitly rather than inherited from `ulimit -s` (glibc falls back to
/// 2 MiB when it is unlimited; musl's default is 128 KiB). Verification parses JSON nested up to 512 deep
/// (`CompactJWS.maximumNestingDepth`), which needs some 2 MiB in a debug build.
public let threadStackByteCount = 8 << 20

/// Runs `body(i)` on `count` POSIX threads at once and waits for all of them.
public func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Box: @unchecked Sendable {
        // Sendable: immutable after init.
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, threadStackByteCount)
    var threads: [pthread_t] = []
    for index in 0..<count {
        let box = Unmanaged.passRetained(Box { body(index) })
        var thread = pthread_t()
        pthread_create(
            &thread, &attributes,
            { raw in
                Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box.toOpaque())
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// Starts a POSIX thread running `body` (with ``threadStackByteCount`` of stack). A detached thread cannot be
/// joined; a joinable one must be (`pthread_join`).
@discardableResult
public func startThread(detached: Bool, _ body: @escaping @Sendable () -> Void) throws(SystemError) -> pthread_t {
    final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
    pthread_attr_setstacksize(&attributes, threadStackByteCount)
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread, &attributes,
        { context in
            Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
    if status != 0 {
        Unmanaged<Box>.fromOpaque(context).release()
        var error = SystemError.fromErrno(status, call: "pthread_create")
        error.message += "; start fewer threads or raise the process's thread limit"
        throw error
    }
    return thread
}

/// Waits for a joinable thread started by ``startThread(detached:_:)`` to finish.
public func joinThread(_ thread: pthread_t) {
    pthread_join(thread, nil)
}

/// One result slot per worker, written from worker threads and read once they all finished.
///
/// `@unchecked Sendable`: each slot is written by at most one thread, and read only after every writer was
/// joined (or `concurrentPerform` returned), which orders the writes before the reads.
public final class ResultSlots<Value>: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<Value?>

    /// `count` empty slots.
    public init(count: Int) {
        storage = .allocate(capacity: max(count, 1))
        storage.initialize(repeating: nil)
    }

    deinit {
        _ = storage.deinitialize()
        storage.deallocate()
    }

    /// Fills slot `index`.
    public func set(_ index: Int, _ value: Value) { storage[index] = value }

    /// Every slot, nil where nothing was written.
    public func values() -> [Value?] { Array(storage.prefix(count)) }

    private var count: Int { storage.count }
}
