import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCore
import LedgerCrypto
import LedgerService
import LedgerSystem
import Synchronization

/// The demo's recovery: what the webhook missed during ``DemoOutage`` is pulled from the demo's App Store Server
/// API by the pull of `ledger reconcile --from-api` (``APIPull``: the same client, JWT, verification and
/// append), over a window `margin` wider on each side than the outage; then a second pull over the same window
/// must append nothing.
enum DemoRecovery {
    /// What the two pulls did.
    struct Result {
        var withheld = 0
        var window: (start: Instant, end: Instant)
        var url = ""
        var first = ReconcileCounts()
        var second = ReconcileCounts()
        /// Subscriptions the pulls asked Apple's transaction history for, and how many Apple had none for.
        var subscriptions = 0
        var skipped = 0
        var seconds = 0.0
        /// The pulls' error lines (a refused item, a failed call).
        var errors: [String] = []

        /// Exactly the withheld notifications were appended, nothing refused, and the second pull added nothing.
        var passed: Bool {
            first.appended == withheld && first.rejected == 0 && second.appended == 0 && second.rejected == 0
        }
    }

    /// Where a pull's lines go; only the errors are kept.
    final class Lines: Sendable {
        let errors = Mutex<[String]>([])

        func report(_ line: String) {
            if line.hasPrefix("error:") { errors.withLock { $0.append(line) } }
        }
    }

    /// Starts the demo's App Store with the whole history, pulls twice, and stops it. The key is made for the
    /// run and never written anywhere.
    static func run(
        _ outage: DemoOutage, ledger: Ledger, verifier: SignedDataVerifier, dataDirectory: String,
        margin: Int64
    ) throws(CLIError) -> Result {
        let started = ContinuousClock.now
        guard let bundleId = verifier.configuration.bundleId else {
            throw CLIError(.internalError, "the demo's verifier names no bundle id")
        }
        let keyId = "DEMO4XF34K"
        let issuerId = "5a1e0000-de30-4c0d-9000-000000000001"
        let generated: ECPrivateKey
        do {
            generated = try ECPrivateKey(generating: .p256)
        } catch {
            throw CLIError(.internalError, "cannot generate the demo's in-app purchase key: \(error.message)")
        }
        let key: AppStoreAPIKey
        do {
            key = try AppStoreAPIKey(keyId: keyId, issuerId: issuerId, privateKey: generated)
        } catch {
            throw CLIError(.internalError, "cannot make the demo's in-app purchase key: \(error.message)")
        }
        let apple = DemoAppStoreAPI(
            publicKey: key.privateKey.publicKey, keyId: keyId, issuerId: issuerId, bundleId: bundleId,
            notifications: outage.history)
        var result = Result(
            withheld: outage.withheld.count,
            window: (outage.start.adding(milliseconds: -margin), outage.end.adding(milliseconds: margin)))
        result.url = try apple.start()
        defer { apple.stop() }
        let client: AppStoreServerAPIClient
        do {
            client = try AppStoreServerAPIClient(
                baseURL: result.url, tokens: APITokenIssuer(key: key, bundleId: bundleId), transport: HTTPSClient())
        } catch {
            throw CLIError(.internalError, "cannot make the App Store Server API client: \(error.message)")
        }
        let lines = Lines()
        let pull = APIPull(client: client, verifier: verifier) { lines.report($0) }
        let request = NotificationHistoryRequest(
            startDate: result.window.start.milliseconds, endDate: result.window.end.milliseconds)
        let quarantine = Quarantine(dataDirectory: dataDirectory)
        for round in 0..<2 {
            let fetched = try pull.fetch(request)
            let counts: ReconcileCounts
            do {
                counts = try pull.apply(fetched, to: ledger, quarantine: quarantine)
            } catch {
                throw Commands.failure(error)
            }
            if round == 0 {
                result.first = counts
                result.subscriptions = fetched.subscriptions
                result.skipped = fetched.skipped
            } else {
                result.second = counts
            }
        }
        result.errors = lines.errors.withLock { $0 }
        result.seconds = Section.seconds(ContinuousClock.now - started)
        return result
    }

    /// The demo's section on the outage and its recovery.
    static func print(_ result: Result, outage: DemoOutage) {
        Section.title("2b. Recovered what the webhook missed from the App Store Server API")
        Terminal.line(
            "   the webhook was down from \(outage.start.iso8601) to \(outage.end.iso8601): \(result.withheld) "
                + "notifications withheld from it (Apple gave up on them)")
        Terminal.line(
            "   reconcile --from-api over \(result.window.start.iso8601) to \(result.window.end.iso8601) from the "
                + "demo's App Store Server API (\(result.url), JWT-checked): \(summary(result.first)) in "
                + "\(Section.format(result.seconds)) s for both pulls")
        Terminal.line(
            "   \(result.first.appended) of \(result.withheld) withheld notifications appended, every one verified "
                + "(Get Transaction History for \(result.subscriptions) subscriptions: \(result.skipped) not found, "
                + "the notifications carry their transactions)")
        Terminal.line(
            "   a second pull over the same window: \(summary(result.second))"
                + (result.second.appended == 0 ? ", nothing appended" : ", APPENDED AGAIN"))
        for error in result.errors.prefix(5) { Terminal.line("   \(error)") }
    }

    static func summary(_ counts: ReconcileCounts) -> String {
        "{\"appended\":\(counts.appended),\"alreadyKnown\":\(counts.alreadyKnown),\"rejected\":\(counts.rejected)}"
    }
}
