#if canImport(Glibc)
    import Glibc
#endif
import Dispatch
import Synchronization

/// Maps a collection on every core, keeping the input order: the result is the same as a sequential map, so
/// parallelism never changes the simulator's output.
enum ParallelMap {
    /// `transform` applied to every element, in order.
    static func map<Element: Sendable, Result: Sendable>(
        _ elements: [Element], _ transform: @Sendable (Element) -> Result
    ) -> [Result] {
        let count = elements.count
        let workers = min(max(1, System.activeProcessorCount), max(1, count / 64))
        if workers <= 1 { return elements.map(transform) }
        let chunk = (count + workers - 1) / workers
        let results = Mutex<[[Result]]>(Array(repeating: [], count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let lower = worker * chunk
            let upper = min(count, lower + chunk)
            guard lower < upper else { return }
            let part = elements[lower..<upper].map(transform)
            results.withLock { $0[worker] = part }
        }
        return results.withLock { $0.flatMap { $0 } }
    }
}

/// The machine's processors.
enum System {
    /// Online processors (at least 1).
    static var activeProcessorCount: Int {
        #if canImport(Glibc)
            return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
            return 1
        #endif
    }
}
