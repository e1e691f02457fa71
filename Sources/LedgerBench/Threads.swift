#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body(i)` on `count` threads at once and waits for all of them.
func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Box: @unchecked Sendable {
        // Sendable: immutable after init.
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
    var threads: [pthread_t] = []
    for index in 0..<count {
        let box = Unmanaged.passRetained(Box { body(index) })
        var thread = pthread_t()
        pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            }, box.toOpaque())
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// One result slot per worker, filled from worker threads.
final class Slots<Value>: @unchecked Sendable {
    // Sendable: each slot is written by one thread only, and read only after every thread was joined.
    private let storage: UnsafeMutableBufferPointer<Value?>

    init(count: Int) {
        storage = .allocate(capacity: count)
        storage.initialize(repeating: nil)
    }

    deinit {
        _ = storage.deinitialize()
        storage.deallocate()
    }

    func set(_ index: Int, _ value: Value) { storage[index] = value }

    func values() -> [Value?] { Array(storage) }
}
