import LedgerAppStore
import LedgerJSON

/// `ledger inspect`: verify one signed payload as Apple's SignedDataVerifier does and print it decoded.
enum InspectCommand: LedgerCommand {
    /// `--as KIND`.
    static let kind = OptionSpec("--as", value: "KIND", "notification (default), transaction or renewal.")

    static let spec = CommandSpec(
        name: "inspect", summary: "Verify one signed payload and print it decoded. Writes nothing.",
        usage: ["inspect [VERIFY FLAGS] [--as notification|transaction|renewal] [--json] FILE|-"],
        discussion: """
            FILE holds a compact JWS or a body with signedPayload. Verifies it as Apple's SignedDataVerifier \
            does (--environment also accepts xcode and local-testing, which skip the signature) and prints the \
            decoded payload with nested signed fields decoded in place. Exit 0 when valid; exit 1 when invalid, \
            with --json {"valid":false,"status":"STATUS","message":"…"}, STATUS one of INVALID_JWT_FORMAT, \
            INVALID_CERTIFICATE, INVALID_CHAIN_LENGTH, VERIFICATION_FAILURE, INVALID_APP_IDENTIFIER, \
            INVALID_ENVIRONMENT.
            """,
        options: SharedOptions.inspectVerify + [kind, SharedOptions.json], positionals: 1...1,
        positionalName: "FILE|-")

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let kind = try context.value(Self.kind) ?? "notification"
        guard ["notification", "transaction", "renewal"].contains(kind) else {
            throw CLIError.usage("--as must be notification, transaction or renewal", command: "inspect")
        }
        let verifier = try VerifySettings.verifier(context)
        let limit = SignedDataVerifier.maximumBodyByteCount
        let input = try InputFile.read(context.arguments.positionals[0], upTo: limit)
        do throws(VerificationError) {
            // Larger than any body Apple sends: invalid, reported like any other invalid payload.
            guard let input else {
                throw VerificationError(.invalidJWTFormat, "the input is over the \(limit)-byte limit")
            }
            let signed = try SignedDataVerifier.signedData(fromInput: input)
            // Judged as Apple's libraries judge it: decoded into the typed models (the ones ingest and the
            // webhook use), so a field of the wrong type is INVALID_JWT_FORMAT, but a field Apple leaves optional
            // may be absent. A notification is verified as ingest, the webhook, reconcile and audit verify it: with
            // every JWS nested in it, each whole. The JSON as signed is what is printed.
            let decoded: JSONValue
            switch kind {
            case "transaction":
                decoded = try verifier.verifyTransaction(signed)
                _ = try TransactionPayload(verified: decoded, requiringLedgerFields: false)
            case "renewal":
                decoded = try verifier.verifyRenewalInfo(signed)
                _ = try RenewalInfoPayload(verified: decoded, requiringLedgerFields: false)
            default:
                let verified = try verifier.verifyNotification(signed)
                _ = try DecodedNotification(verified, requiringLedgerFields: false)
                decoded = verified.expandedPayload
            }
            Terminal.line(decoded.serialized(.pretty))
            return 0
        } catch {
            return context.refused(error)
        }
    }
}
