import LedgerAppStoreAPI
import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The thread of one of `serve`'s background loops (the reconcile schedule, the consumption answers): started
/// once, joined after its ``StopFlag`` is set.
final class BackgroundLoop: Sendable {
    private let thread = Mutex<pthread_t?>(nil)

    /// Starts `body` on a thread of its own; `what` names the loop in the error.
    func start(_ what: String, _ body: @escaping @Sendable () -> Void) throws(CLIError) {
        do {
            let started = try startThread(detached: false, body)
            thread.withLock { $0 = started }
        } catch {
            throw CLIError.failure("cannot start \(what): \(error.message)")
        }
    }

    /// Waits for the thread to end (its loop must have been told to stop); nothing when it never started.
    func join() {
        if let running = thread.withLock({ $0 }) { pthread_join(running, nil) }
        thread.withLock { $0 = nil }
    }
}

/// A stop request a pausing thread notices within 100 ms.
final class StopFlag: Sendable {
    private let flag = Mutex(false)

    /// Whether a stop was requested.
    var isSet: Bool { flag.withLock { $0 } }

    /// Requests the stop.
    func set() { flag.withLock { $0 = true } }

    /// Waits `milliseconds`, or less when a stop is requested.
    func pause(milliseconds: Int64) {
        var waited: Int64 = 0
        while waited < milliseconds, !isSet {
            let step = min(100, milliseconds - waited)
            HTTPSClient.pause(milliseconds: Int(step))
            waited += step
        }
    }
}
