import LedgerAPI
import LedgerAppStoreAPI
import LedgerCore
import LedgerHTTP
import LedgerService
import LedgerSystem
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `serve --consumption auto`: answers each CONSUMPTION_REQUEST the log receives (through the webhook or a
/// scheduled pull) with Send Consumption Information, on a thread of its own, never on the webhook's path.
///
/// It follows the log from a durable cursor (``ConsumptionState``, `consumption-answers` in the data directory):
/// a request found is written down as pending before anything is sent, and crossed off once Apple took it (202),
/// once Apple refused it for good (a 4xx other than 429), or once Apple's 12 hours from the notification's
/// `signedDate` are over. A restart therefore neither forgets a pending request nor sends an answered one again
/// (only a crash between Apple's 202 and the cursor's write sends that one answer twice; Apple keeps the last).
/// Without the app's consent (`--consumption-consent no`) nothing is sent: Apple refuses consumption
/// information whose `customerConsented` is not true. A failure is logged on stderr and counted on `/metrics`;
/// it never stops the webhook.
final class ConsumptionAnswers: Sendable {
    /// Apple's window for an answer, from the notification's `signedDate`.
    static let windowMilliseconds: Int64 = 12 * 3_600_000
    /// The first pause before a request whose send failed is tried again; it doubles up to an hour.
    static let firstRetryMilliseconds: Int64 = 60_000

    let client: AppStoreServerAPIClient
    let ledger: Ledger
    /// `--consumption-consent`: whether the app's customers consented to share consumption data with Apple.
    let consent: Bool
    let state: ConsumptionState
    let metrics: LedgerMetrics?
    let stopping: StopFlag
    let clock: @Sendable () -> Int64
    /// Where the worker's lines go (stderr).
    let report: @Sendable (String) -> Void
    private let worker = BackgroundLoop()
    /// The outcome and error counters made so far, by label.
    let counters = Mutex<[String: Counter]>([:])
    /// The cursor as last read or written.
    private let contents = Mutex<ConsumptionState.Contents?>(nil)
    /// The last error reading or writing the cursor, said once.
    private let lastStateError = Mutex<String?>(nil)
    /// The `scanned` of the file as last written.
    private let writtenScanned = Mutex<UInt64>(0)
    /// When each pending request may be tried again, and how many times it failed (in memory: a restart tries
    /// every pending request at once).
    let retries = Mutex<[UInt64: (at: Int64, failures: Int)]>([:])

    init(
        client: AppStoreServerAPIClient, ledger: Ledger, dataDirectory: String, consent: Bool,
        metrics: LedgerMetrics? = nil, stopping: StopFlag = StopFlag(),
        clock: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds,
        report: @escaping @Sendable (String) -> Void
    ) {
        self.client = client
        self.ledger = ledger
        self.consent = consent
        self.state = ConsumptionState(path: dataDirectory + "/" + ConsumptionState.file)
        self.metrics = metrics
        self.stopping = stopping
        self.clock = clock
        self.report = report
        metrics?.gauge(
            "ledger_consumption_pending", help: "CONSUMPTION_REQUESTs waiting for an answer to be sent to Apple."
        ) { [weak self] in Double(self?.contents.withLock { $0?.pending.count } ?? 0) }
    }

    /// Starts the worker.
    func start() throws(CLIError) {
        try worker.start("the consumption answers") { [self] in self.loop() }
    }

    /// Stops the worker and waits for a send in progress (whose retry pauses end at once).
    func stop() {
        stopping.set()
        worker.join()
    }

    private func loop() {
        while !stopping.isSet {
            let scanned = runOnce()
            // Woken as soon as a record after the scanned ones is durable, or to retry a pending request.
            var waited = 0
            while !stopping.isSet, waited < 1000, ledger.waitForHead(after: scanned, timeoutMillis: 100) <= scanned {
                waited += 100
            }
        }
    }

    /// One pass: the records appended since the last one are scanned for CONSUMPTION_REQUESTs, then every pending
    /// request that is due is answered. Returns the seq scanned up to.
    @discardableResult
    func runOnce() -> UInt64 {
        var current: ConsumptionState.Contents
        do {
            if let known = contents.withLock({ $0 }) {
                current = known
            } else if let stored = try state.read() {
                current = stored
                writtenScanned.withLock { $0 = stored.scanned }
            } else {
                current = try firstContents()
                try write(current)
            }
            if current.scanned > ledger.head.seq {
                // A cursor beyond the head: the log was restored from a backup. Look again from the last 12 hours.
                current = try firstContents()
            }
            current = try scan(current)
            contents.withLock { $0 = current }
            lastStateError.withLock { $0 = nil }
        } catch {
            // Said once, not every second, until it changes or mends.
            let message = error.message
            if lastStateError.withLock({ seen in
                defer { seen = message }; return seen != message
            }) {
                report("error: consumption answers: \(message); nothing is answered; the webhook keeps serving")
                count("failed", code: "state")
            }
            return ledger.head.seq
        }
        for seq in current.pending where !stopping.isSet && isDue(seq) {
            guard answer(seq) else { continue }
            current.pending.removeAll { $0 == seq }
            retries.withLock { _ = $0.removeValue(forKey: seq) }
            contents.withLock { $0 = current }
            do {
                try write(current)
            } catch {
                report("error: consumption answers: \(error.message)")
            }
        }
        return current.scanned
    }

    /// With no cursor yet: the requests of the last 12 hours, found from the head backwards.
    func firstContents() throws(CLIError) -> ConsumptionState.Contents {
        let head = ledger.head.seq
        var pending: [UInt64] = []
        var seq = head
        let since = clock() - Self.windowMilliseconds
        while seq > 0 {
            let entry = try Self.entry(ledger, seq)
            guard entry.recordedAt.milliseconds >= since else { break }
            if Self.isConsumptionRequest(entry) { pending.insert(seq, at: 0) }
            seq -= 1
        }
        return ConsumptionState.Contents(scanned: head, pending: pending)
    }

    /// Adds the requests appended after `contents.scanned` to the pending ones, durably.
    func scan(_ contents: ConsumptionState.Contents) throws(CLIError) -> ConsumptionState.Contents {
        var next = contents
        let head = ledger.head.seq
        guard head > contents.scanned else { return contents }
        for seq in (contents.scanned + 1)...head {
            if Self.isConsumptionRequest(try Self.entry(ledger, seq)) { next.pending.append(seq) }
        }
        next.scanned = head
        // Written before anything is sent: a restart finds every request still to answer.
        // Otherwise every 10,000 records, so that a restart does not read the whole log again.
        if next.pending != contents.pending || head - writtenScanned.withLock({ $0 }) >= 10_000 {
            try write(next)
        }
        return next
    }

    private func isDue(_ seq: UInt64) -> Bool {
        let at = retries.withLock { $0[seq]?.at } ?? 0
        return at <= clock()
    }

    private func write(_ next: ConsumptionState.Contents) throws(CLIError) {
        try state.write(next)
        writtenScanned.withLock { $0 = next.scanned }
    }

    /// Whether a log entry is a CONSUMPTION_REQUEST notification about a transaction.
    static func isConsumptionRequest(_ entry: LedgerEntry) -> Bool {
        entry.record.source == .notification && entry.record.notification?.type == "CONSUMPTION_REQUEST"
            && entry.record.transaction != nil
    }

    static func entry(_ ledger: Ledger, _ seq: UInt64) throws(CLIError) -> LedgerEntry {
        do {
            return try ledger.entry(seq: seq)
        } catch {
            throw Commands.failure(error)
        }
    }
}
