import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Maps a collection on every core, keeping the input order: the result is the same as a sequential map, so
/// parallelism never changes the simulator's output.
enum ParallelMap {
    /// `transform` applied to every element, in order; the first error (in input order) is thrown.
    static func map<Element: Sendable, Output: Sendable, Failure: Error>(
        _ elements: [Element], _ transform: @Sendable (Element) throws(Failure) -> Output
    ) throws(Failure) -> [Output] {
        let count = elements.count
        let workers = min(processorCount, max(1, count / 64))
        if workers <= 1 {
            var outputs: [Output] = []
            outputs.reserveCapacity(count)
            for element in elements { outputs.append(try transform(element)) }
            return outputs
        }
        let chunk = (count + workers - 1) / workers
        let parts = Mutex<[Result<[Output], Failure>?]>(Array(repeating: nil, count: workers))
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let lower = min(count, worker * chunk)
            let upper = min(count, lower + chunk)
            var outputs: [Output] = []
            outputs.reserveCapacity(upper - lower)
            let result: Result<[Output], Failure>
            do throws(Failure) {
                for element in elements[lower..<upper] { outputs.append(try transform(element)) }
                result = .success(outputs)
            } catch {
                result = .failure(error)
            }
            parts.withLock { $0[worker] = result }
        }
        var outputs: [Output] = []
        outputs.reserveCapacity(count)
        for part in parts.withLock({ $0 }) {
            switch part {
            case .success(let chunk)?: outputs.append(contentsOf: chunk)
            case .failure(let error)?: throw error
            case nil: break
            }
        }
        return outputs
    }

    /// Online processors (at least 1).
    static var processorCount: Int {
        #if canImport(Glibc)
            return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
            return 1
        #endif
    }
}
