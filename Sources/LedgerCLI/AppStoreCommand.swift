import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCore
import LedgerJSON
import LedgerService
import LedgerSystem

/// `ledger appstore SUBCOMMAND ID`: asks the App Store Server API and prints its answer, every signed datum
/// verified as the webhook verifies it (against the data directory's environment and app) and decoded in place.
/// Writes nothing.
enum AppStoreCommand: LedgerCommand {
    /// `--days N` of `extend`.
    static let days = OptionSpec("--days", value: "N", "extend: the days to add, 1 to 90.")
    /// `--reason-code C` of `extend`.
    static let reasonCode = OptionSpec("--reason-code", value: "C", "extend: Apple's extendReasonCode, 0 to 3.")
    /// `--request-id UUID` of `extend`.
    static let requestId = OptionSpec("--request-id", value: "UUID", "extend: the request's id (a retry reuses it).")
    /// `--file FILE` of `consumption`.
    static let file = OptionSpec("--file", value: "FILE", "consumption: the ConsumptionRequest, as JSON.")

    static let spec = CommandSpec(
        name: "appstore", summary: "Ask the App Store Server API; print its answer verified and decoded.",
        usage: [
            "appstore history|transaction|statuses|refunds TRANSACTION_ID --key-file F --key-id K --issuer-id I "
                + "[VERIFY FLAGS] [--json]",
            "appstore order ORDER_ID --key-file F --key-id K --issuer-id I [VERIFY FLAGS] [--json]",
            "appstore test-notification [TOKEN] --key-file F --key-id K --issuer-id I [VERIFY FLAGS] [--json]",
            "appstore extend ORIGINAL_TRANSACTION_ID --days N --reason-code C [--request-id UUID] --key-file F "
                + "--key-id K --issuer-id I [VERIFY FLAGS] [--json]",
            "appstore consumption TRANSACTION_ID --file REQUEST.json --key-file F --key-id K --issuer-id I "
                + "[VERIFY FLAGS]",
        ],
        discussion: """
            history: Get Transaction History v2 (every page); transaction: Get Transaction Info; statuses: Get \
            All Subscription Statuses; refunds: Get Refund History; order: Look Up Order ID (the order id on \
            the customer's receipt email); test-notification: Request a Test Notification (prints its token), \
            or with TOKEN Get Test Notification Status. Every signed transaction and renewal info is verified as the \
            webhook verifies it, against the data directory's environment and app, and printed decoded. \
            Writes and links nothing. Exit 1 when Apple refuses or a signature does not verify. The two that \
            change something at Apple: extend: Extend a Subscription Renewal Date by 1 to 90 days, reason code \
            0 (undeclared), 1 (customer satisfaction), 2 (other) or 3 (service issue or outage), under a request \
            id (a UUID, made when not given and printed, so that a retry with it is not a second extension); \
            consumption: Send Consumption Information (PUT /inApps/v2/transactions/consumption/ID), the answer to a \
            CONSUMPTION_REQUEST (within its 12 hours), from a JSON file holding Apple's ConsumptionRequest: \
            customerConsented (must be true), deliveryStatus (DELIVERED, UNDELIVERED_QUALITY_ISSUE, \
            UNDELIVERED_WRONG_ITEM, UNDELIVERED_SERVER_OUTAGE, UNDELIVERED_OTHER), sampleContentProvided, and \
            optionally consumptionPercentage (0 to 100000 milliunits) and refundPreference (DECLINE, GRANT_FULL, \
            GRANT_PRORATED). 'serve --consumption auto' answers them by itself. These two need no trust root: Apple's \
            answers to them carry no signed data.
            """,
        options: SharedOptions.verify + [
            SharedOptions.data, SharedOptions.store, SharedOptions.json,
        ]
            + SharedOptions.apiClient + [days, reasonCode, requestId, file], positionals: 1...2,
        positionalName: "SUBCOMMAND ID")

    static let subcommands = [
        "history", "transaction", "statuses", "order", "refunds", "test-notification", "extend", "consumption",
    ]

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let command = context.arguments.command
        let sub = context.arguments.positionals[0]
        guard subcommands.contains(sub) else {
            throw CLIError.usage(
                "unknown appstore subcommand '\(sub)'; use \(subcommands.joined(separator: ", "))", command: command)
        }
        if sub == "test-notification" { return try testNotification(context) }
        if sub == "extend" || sub == "consumption" { return try AppStoreChanges.run(sub, context) }
        guard context.arguments.positionals.count == 2, let id = context.arguments.positionals.last, !id.isEmpty else {
            throw CLIError.usage(
                "appstore \(sub) needs \(sub == "order" ? "an ORDER_ID" : "a TRANSACTION_ID")", command: command)
        }
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context))
        let client = try APIClientSettings.client(context, configuration: verifier.configuration)
        let answer: JSONValue
        do throws(AppStoreAPIError) {
            switch sub {
            case "history":
                let pages = try client.transactionHistory(transactionId: id)
                answer = .object([
                    "environment": pages.first?.environment.map { .string($0.rawValue) } ?? .null,
                    "bundleId": pages.first?.bundleId.map { .string($0) } ?? .null,
                    "signedTransactions": .array(pages.flatMap(\.signedTransactions).map { .string($0) }),
                ])
            case "transaction": answer = try client.transactionInfo(transactionId: id)
            case "statuses": answer = try client.subscriptionStatuses(transactionId: id)
            case "order": answer = try client.lookUpOrder(orderId: id)
            default: answer = try refunds(client, id)
            }
        } catch {
            throw CLIError.failure("\(error.message)")
        }
        let decoded: JSONValue
        do throws(VerificationError) {
            decoded = try verify(answer, verifier)
        } catch {
            return context.refused(error)
        }
        guard sub == "order" else {
            if context.json { context.printJSON(decoded) } else { Terminal.out(summary(decoded)) }
            return 0
        }
        return try order(id, decoded, context)
    }

    /// `appstore order`: Apple's transactions of the order, then each one's subscription as the ledger knows it
    /// now, with its owner: what support needs to find a customer from the order id of Apple's receipt email.
    /// Links nothing. An order Apple does not know (`status` 1) is exit 1.
    static func order(_ id: String, _ decoded: JSONValue, _ context: CommandContext) throws(CLIError) -> Int32 {
        let otids = originalTransactionIds(in: decoded)
        let now = Instant(milliseconds: SystemClock.wallMilliseconds())
        var known: [(otid: String, state: EntitlementState?)] = []
        // A data directory that does not exist holds no record of anything.
        let ledger = try? Commands.openReader(context)
        defer { ledger?.close() }
        for otid in otids {
            var state: EntitlementState?
            if let ledger {
                do {
                    let found = try ledger.state(of: .originalTransaction(otid), at: now, knownAt: nil)
                    state = found.subscriptions.isEmpty ? nil : found
                } catch {
                    throw Commands.failure(error)
                }
            }
            known.append((otid, state))
        }
        let valid = decoded["status"]?.int64 != 1
        if context.json {
            var object = decoded.object ?? [:]
            object["ledger"] = .array(
                known.map { item in
                    .object([
                        "originalTransactionId": .string(item.otid), "known": .bool(item.state != nil),
                        "userId": item.state?.userId.map { .integer($0) } ?? .null,
                        "appAccountToken": item.state?.appAccountToken.map { .string($0) } ?? .null,
                        "state": item.state?.json ?? .null,
                    ])
                })
            context.printJSON(.object(object))
        } else if !valid {
            Terminal.err("error: Apple knows no order \(id) (Look Up Order ID status 1)\n")
        } else {
            Terminal.out(summary(decoded))
            for item in known {
                guard let state = item.state else {
                    Terminal.line("subscription \(item.otid): the ledger holds no record of it")
                    continue
                }
                let owner =
                    state.userId.map { "user \($0)" } ?? state.appAccountToken.map { "account \($0)" } ?? "no owner"
                Terminal.line(
                    "subscription \(item.otid): \(owner), status \(state.status.rawValue), device limit "
                        + "\(state.deviceLimit)")
            }
        }
        return valid ? 0 : 1
    }

    /// The distinct original transaction ids of the decoded transactions, in order.
    static func originalTransactionIds(in decoded: JSONValue) -> [String] {
        var found: [String] = []
        func walk(_ value: JSONValue) {
            if case .object(let object) = value {
                if let otid = object["originalTransactionId"]?.string, !found.contains(otid) { found.append(otid) }
                for (_, member) in object { walk(member) }
            }
            if case .array(let items) = value { for item in items { walk(item) } }
        }
        walk(decoded)
        return found
    }

    /// `appstore test-notification`: asks Apple to send a test notification and prints its token; with the
    /// token, prints its delivery status and the notification verified and decoded.
    static func testNotification(_ context: CommandContext) throws(CLIError) -> Int32 {
        let verifier = try VerifySettings.verifier(context, bound: BoundIdentity.of(context))
        let client = try APIClientSettings.client(context, configuration: verifier.configuration)
        let token = context.arguments.positionals.count == 2 ? context.arguments.positionals[1] : nil
        let answer: JSONValue
        do throws(AppStoreAPIError) {
            guard let token else {
                answer = try client.requestTestNotification()
                guard let sent = answer["testNotificationToken"]?.string else {
                    throw AppStoreAPIError(
                        .invalidResponse, "Request a Test Notification gave no testNotificationToken")
                }
                if context.json { context.printJSON(answer) } else { Terminal.line(sent) }
                return 0
            }
            answer = try client.testNotificationStatus(token: token)
        } catch {
            throw CLIError.failure(error.message)
        }
        do throws(VerificationError) {
            guard let signed = answer["signedPayload"]?.string else {
                throw VerificationError(.invalidJWTFormat, "the answer carries no signedPayload")
            }
            var object = answer.object ?? [:]
            object["signedPayload"] = try verifier.verifyNotification(signed).expandedPayload
            if context.json {
                context.printJSON(.object(object))
            } else {
                let results = (answer["sendAttemptResults"]?.array ?? []).compactMap { $0["sendAttemptResult"]?.string }
                Terminal.line("delivery attempts: \(results.isEmpty ? "none yet" : results.joined(separator: ", "))")
            }
            return 0
        } catch {
            return context.refused(error)
        }
    }

    /// Every page of Get Refund History, as one answer.
    static func refunds(_ client: AppStoreServerAPIClient, _ id: String) throws(AppStoreAPIError) -> JSONValue {
        var signed: [JSONValue] = []
        var revision: String?
        var revisions = Set<String>()
        repeat {
            let page = try client.refundHistoryPage(transactionId: id, revision: revision)
            signed += page["signedTransactions"]?.array ?? []
            guard page["hasMore"]?.bool == true, let next = page["revision"]?.string, revisions.insert(next).inserted
            else { break }
            revision = next
        } while true
        return .object(["signedTransactions": .array(signed)])
    }

    /// The answer with its envelope checked and each signed member replaced by its verified, decoded payload.
    static func verify(_ answer: JSONValue, _ verifier: SignedDataVerifier) throws(VerificationError) -> JSONValue {
        let gate = ReconcileGate(verifier.configuration)
        try gate.checkEnvelope(
            environment: answer["environment"]?.string.map { LedgerEnvironment(rawValue: $0) },
            bundleId: answer["bundleId"]?.string, appAppleId: answer["appAppleId"]?.int64)
        func expand(_ value: JSONValue, key: String?) throws(VerificationError) -> JSONValue {
            switch value {
            case .object(let object):
                var out: JSONObject = [:]
                for (name, member) in object { out[name] = try expand(member, key: name) }
                return .object(out)
            case .array(let items):
                var out: [JSONValue] = []
                for item in items { out.append(try expand(item, key: key)) }
                return .array(out)
            case .string(let text):
                switch key {
                case "signedTransactionInfo", "signedTransactions": return try verifier.verifyTransaction(text)
                case "signedRenewalInfo": return try verifier.verifyRenewalInfo(text)
                default: return value
                }
            default: return value
            }
        }
        return try expand(answer, key: nil)
    }

    /// One line per transaction found in the decoded answer.
    static func summary(_ decoded: JSONValue) -> String {
        var lines: [String] = []
        func walk(_ value: JSONValue) {
            if case .object(let object) = value, let id = object["transactionId"]?.string {
                var line = "\(id)  \(object["productId"]?.string ?? "-")"
                if let purchase = object["purchaseDate"]?.int64 {
                    line += "  purchased \(Instant(milliseconds: purchase))"
                }
                if let expires = object["expiresDate"]?.int64 { line += "  expires \(Instant(milliseconds: expires))" }
                if let revoked = object["revocationDate"]?.int64 {
                    line += "  revoked \(Instant(milliseconds: revoked))"
                }
                lines.append(line)
                return
            }
            if case .object(let object) = value { for (_, member) in object { walk(member) } }
            if case .array(let items) = value { for item in items { walk(item) } }
        }
        walk(decoded)
        return lines.isEmpty ? "no transactions\n" : lines.joined(separator: "\n") + "\n"
    }
}
