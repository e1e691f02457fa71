import LedgerAPI
import LedgerAppStoreAPI
import LedgerCore
import LedgerService
import LedgerSystem

/// `serve --reconcile-every`: the pull of `reconcile --from-api` on a schedule, on a thread of its own beside the
/// webhook, with the server's own ledger. Each run asks from the durable cursor (the `until` of the last run
/// that appended everything it fetched) less an overlap, so a notification Apple lists late is still found; the
/// first run starts at `--reconcile-since`, else four days back (Apple retries for three). A failing run (Apple unreachable, a bad key, a
/// refused item) leaves the cursor where it was, is logged on stderr, and never stops the webhook.
final class ScheduledPull: Sendable {
    /// The cursor's file in the data directory (decimal milliseconds, written durably).
    static let cursorFile = "reconcile-cursor"
    /// How far before the cursor each run starts.
    static let overlapMilliseconds: Int64 = 3_600_000
    /// How far back the first run looks.
    static let firstLookbackMilliseconds: Int64 = 4 * 86_400_000

    let pull: APIPull
    let ledger: Ledger
    let quarantine: Quarantine
    let intervalMilliseconds: Int64
    let cursorPath: String
    /// Where the first run starts when there is no cursor yet (`--reconcile-since`; else four days back).
    let firstSince: Int64?
    /// Where each run's outcome is counted (`/metrics`, `/healthz`).
    let metrics: LedgerMetrics?
    /// Set by ``stop()``; the client's retry pauses end early on it.
    let stopping: StopFlag
    private let worker = BackgroundLoop()

    init(
        pull: APIPull, ledger: Ledger, dataDirectory: String, intervalMilliseconds: Int64, firstSince: Int64?,
        metrics: LedgerMetrics? = nil, stopping: StopFlag = StopFlag()
    ) {
        self.pull = pull
        self.ledger = ledger
        self.quarantine = Quarantine(dataDirectory: dataDirectory)
        self.intervalMilliseconds = intervalMilliseconds
        self.cursorPath = dataDirectory + "/" + Self.cursorFile
        self.firstSince = firstSince
        self.metrics = metrics
        self.stopping = stopping
    }

    /// Parses `15m`, `1h`, `30s`, `500ms` or plain seconds; nil for anything else or less than a second.
    static func interval(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            guard let value = Int64(text.dropLast(suffix.count)), value > 0, value <= Int64.max / scale else {
                return nil
            }
            return value * scale >= 1000 ? value * scale : nil
        }
        guard let seconds = Int64(text), seconds > 0, seconds <= Int64.max / 1000 else { return nil }
        return seconds * 1000
    }

    /// Starts the schedule: a first run at once, then one every interval.
    func start() throws(CLIError) {
        try worker.start("the reconcile schedule") { [self] in self.loop() }
    }

    /// Stops the schedule and waits for a run in progress to end.
    func stop() {
        stopping.set()
        worker.join()
    }

    private func loop() {
        while !stopping.isSet {
            runOnce()
            stopping.pause(milliseconds: intervalMilliseconds)
        }
    }

    /// One run: the window from the cursor (less the overlap) to now.
    func runOnce() {
        let now = SystemClock.wallMilliseconds()
        let since =
            readCursor().map { $0 - Self.overlapMilliseconds } ?? firstSince
            ?? now - Self.firstLookbackMilliseconds - Self.overlapMilliseconds
        let window = "\(Instant(milliseconds: since)) to \(Instant(milliseconds: now))"
        do throws(CLIError) {
            let fetched = try pull.fetch(NotificationHistoryRequest(startDate: since, endDate: now))
            let counts: ReconcileCounts
            do {
                counts = try pull.apply(fetched, to: ledger, quarantine: quarantine)
            } catch {
                throw Commands.failure(error)
            }
            let line =
                "reconcile: {\"appended\":\(counts.appended),\"alreadyKnown\":\(counts.alreadyKnown),"
                + "\"rejected\":\(counts.rejected)} for \(window)"
            guard counts.rejected == 0 else {
                pull.report(line + "; nothing appended, the cursor stays; see 'ledger quarantine'")
                metrics?.reconcileFailed(
                    code: "rejected", message: "\(counts.rejected) rejected",
                    at: SystemClock.wallMilliseconds())
                return
            }
            // Reported once the cursor is durable: a run that says it is done is done, whatever happens next.
            try writeCursor(now)
            pull.report(line)
            metrics?.reconcileSucceeded(appended: counts.appended, at: SystemClock.wallMilliseconds())
        } catch {
            pull.report("error: reconcile for \(window) failed: \(error.message); the webhook keeps serving")
            metrics?.reconcileFailed(
                code: error.cause ?? "failure", message: error.message, at: SystemClock.wallMilliseconds())
        }
    }

    func readCursor() -> Int64? {
        guard let bytes = try? PosixFileSystem().readFile(cursorPath) else { return nil }
        return Int64(String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace })
    }

    func writeCursor(_ milliseconds: Int64) throws(CLIError) {
        do {
            try PosixFileSystem().writeFileDurably(cursorPath, Array("\(milliseconds)\n".utf8))
        } catch {
            throw CLIError.failure("cannot write \(cursorPath): \(error.message)")
        }
    }
}
