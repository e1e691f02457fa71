import LedgerCore
import LedgerSimulator
import LedgerSystem

/// The demo's webhook outage: for ten days from the middle of the simulated span the webhook is down and Apple
/// gives up on every notification it signed then, so none of them reaches the ledger. The deliveries that do
/// reach it are written to `webhook.jsonl` beside the simulation's `notifications.jsonl` (which keeps them all),
/// and the App Store keeps every notification for its history.
struct DemoOutage {
    /// What reached the webhook, one request body per line, in delivery order.
    static let webhookFile = "webhook.jsonl"
    /// How long the webhook is down, in simulated days.
    static let days = 10.0

    /// When the webhook went down.
    let start: Instant
    /// When it came back.
    let end: Instant
    /// The notifications signed while it was down (indexes into ``Simulation/notifications``): never delivered.
    let withheld: Set<Int>
    /// Every notification as Apple keeps it for Get Notification History: its signedDate and its JWS.
    let history: [DemoAppStoreAPI.Notification]
    /// Where the webhook's deliveries are.
    let webhookPath: String

    /// Reads the simulation's `notifications.jsonl` in `directory` (one line per delivery of
    /// ``Simulation/deliveries``), writes the deliveries outside the outage to ``webhookFile``, and keeps each
    /// notification's JWS for the demo's App Store.
    init(simulation: Simulation, directory: String, fileSystem: PosixFileSystem = PosixFileSystem()) throws(CLIError) {
        let config = simulation.config
        let middle = (config.start.milliseconds + config.end.milliseconds) / 2
        start = Instant(milliseconds: middle)
        end = start.adding(milliseconds: config.clock.days(Self.days))
        var withheld = Set<Int>()
        for (index, notification) in simulation.notifications.enumerated()
        where notification.originalTransactionId != nil && notification.signedDate >= start
            && notification.signedDate < end
        {
            withheld.insert(index)
        }
        self.withheld = withheld
        let all = Path.join(directory, SimulationFiles.notifications)
        webhookPath = Path.join(directory, Self.webhookFile)
        let bytes: [UInt8]
        do {
            bytes = try fileSystem.readFile(all) ?? []
        } catch {
            throw CLIError(.internalError, "cannot read \(all): \(error.message)")
        }
        var jws = [String?](repeating: nil, count: simulation.notifications.count)
        var delivered: [UInt8] = []
        delivered.reserveCapacity(bytes.count)
        var lineStart = 0
        var line = 0
        for (offset, byte) in bytes.enumerated() where byte == 0x0A {
            guard line < simulation.deliveries.count else { break }
            let notification = simulation.deliveries[line].notification
            let body = bytes[lineStart..<offset]
            if jws[notification] == nil { jws[notification] = Self.signedPayload(of: body) }
            if !withheld.contains(notification) { delivered += bytes[lineStart...offset] }
            lineStart = offset + 1
            line += 1
        }
        guard line == simulation.deliveries.count, !jws.contains(nil) else {
            throw CLIError(
                .internalError,
                "\(all) holds \(line) deliveries, not the simulation's \(simulation.deliveries.count)")
        }
        history = zip(simulation.notifications, jws).map { (date: $0.signedDate.milliseconds, signedPayload: $1 ?? "") }
        do {
            try fileSystem.writeFileDurably(webhookPath, delivered)
        } catch {
            throw CLIError.failure("cannot write \(webhookPath): \(error.message)")
        }
    }

    /// The JWS of a `{"signedPayload":"…"}` body as the simulator writes it (a JWS needs no escaping).
    static func signedPayload(of body: ArraySlice<UInt8>) -> String? {
        let prefix = Array(#"{"signedPayload":""#.utf8)
        let suffix = Array(#""}"#.utf8)
        guard body.count > prefix.count + suffix.count, body.prefix(prefix.count).elementsEqual(prefix),
            body.suffix(suffix.count).elementsEqual(suffix)
        else { return nil }
        return String(decoding: body.dropFirst(prefix.count).dropLast(suffix.count), as: UTF8.self)
    }
}
