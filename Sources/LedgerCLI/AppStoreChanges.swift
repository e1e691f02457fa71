import LedgerAppStore
import LedgerAppStoreAPI
import LedgerCore
import LedgerJSON

/// `ledger appstore extend|consumption`: the two calls that change something at Apple, made by an operator.
/// Every value is checked against Apple's documented ranges before anything is sent.
enum AppStoreChanges {
    static func run(_ sub: String, _ context: CommandContext) throws(CLIError) -> Int32 {
        let command = context.arguments.command
        guard context.arguments.positionals.count == 2, let id = context.arguments.positionals.last, !id.isEmpty
        else {
            throw CLIError.usage(
                "appstore \(sub) needs \(sub == "extend" ? "an ORIGINAL_TRANSACTION_ID" : "a TRANSACTION_ID")",
                command: command)
        }
        guard id.utf8.count <= 64, id.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw CLIError.usage("appstore \(sub): '\(id)' is not a transaction id (1 to 64 digits)", command: command)
        }
        return sub == "extend" ? try extend(id, context) : try consumption(id, context)
    }

    /// Extend a Subscription Renewal Date; prints Apple's answer (`effectiveDate`, `success`, …) and the request id.
    static func extend(_ otid: String, _ context: CommandContext) throws(CLIError) -> Int32 {
        let command = context.arguments.command
        guard let days = try context.integer(AppStoreCommand.days, in: 1...90).map(Int.init) else {
            throw CLIError.usage("appstore extend needs --days N (1 to 90)", command: command)
        }
        guard let reason = try context.integer(AppStoreCommand.reasonCode, in: 0...3).map(Int.init) else {
            throw CLIError.usage(
                "appstore extend needs --reason-code C: 0 undeclared, 1 customer satisfaction, 2 other, 3 service "
                    + "issue or outage", command: command)
        }
        let requestId =
            try context.value(AppStoreCommand.requestId).map { (value) throws(CLIError) in
                guard isUUID(value) else {
                    throw CLIError.usage("--request-id '\(value)' is not a UUID", command: command)
                }
                return value
            } ?? randomUUID()
        let client = try APIClientSettings.client(context, configuration: changeConfiguration(context))
        let answer: JSONValue
        do throws(AppStoreAPIError) {
            answer = try client.extendRenewalDate(
                originalTransactionId: otid, extendByDays: days, extendReasonCode: reason, requestIdentifier: requestId)
        } catch {
            throw CLIError.failure("\(error.message) (request id \(requestId): retry with --request-id \(requestId))")
        }
        let success = answer["success"]?.bool ?? false
        if context.json {
            var object = answer.object ?? [:]
            object["requestIdentifier"] = .string(requestId)
            context.printJSON(.object(object))
        } else {
            var line = success ? "extended \(otid) by \(days) days" : "Apple did not extend \(otid)"
            if let effective = answer["effectiveDate"]?.int64 {
                line += ": renews \(Instant(milliseconds: effective).iso8601)"
            }
            Terminal.line(line + " (request id \(requestId))")
        }
        return success ? 0 : 1
    }

    /// The environment and app a change is sent for: no trust root, since Apple's answer to either carries no
    /// signed data.
    static func changeConfiguration(_ context: CommandContext) throws(CLIError) -> VerifierConfiguration {
        try VerifySettings.configuration(context, bound: BoundIdentity.of(context), trustRoots: false)
    }

    /// Send Consumption Information from a JSON file holding Apple's ConsumptionRequest.
    static func consumption(_ transactionId: String, _ context: CommandContext) throws(CLIError) -> Int32 {
        let command = context.arguments.command
        guard let path = try context.value(AppStoreCommand.file) else {
            throw CLIError.usage("appstore consumption needs --file REQUEST.json", command: command)
        }
        let request = try consumptionRequest(path, command: command)
        let client = try APIClientSettings.client(context, configuration: changeConfiguration(context))
        do throws(AppStoreAPIError) {
            try client.sendConsumptionInformation(transactionId: transactionId, request)
        } catch {
            throw CLIError.failure(error.message)
        }
        Terminal.line("sent consumption information for \(transactionId)")
        return 0
    }

    /// The ConsumptionRequest in `path`, checked against Apple's rules for Send Consumption Information: a JSON
    /// object of at most 64 KiB with `customerConsented` true, `deliveryStatus` and `sampleContentProvided`, and
    /// at most `consumptionPercentage` and `refundPreference` besides (``ConsumptionRequest``).
    static func consumptionRequest(_ path: String, command: String) throws(CLIError) -> ConsumptionRequest {
        let bytes = try InputFile.read(path, limit: 64 << 10)
        guard let value = try? JSONValue.parse(bytes), value.object != nil else {
            throw CLIError.usage("\(path) is not a JSON object", command: command)
        }
        do {
            return try ConsumptionRequest(json: value)
        } catch {
            throw CLIError.usage("\(path): \(error.message)", command: command)
        }
    }

    /// Whether `text` is a UUID in its 8-4-4-4-12 hexadecimal form.
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) || (0x41...0x46).contains(byte)
                else { return false }
            }
        }
        return true
    }

    /// A random (version 4) UUID.
    static func randomUUID() -> String {
        var random = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte in
            String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16)
        }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
