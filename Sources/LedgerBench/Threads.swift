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
