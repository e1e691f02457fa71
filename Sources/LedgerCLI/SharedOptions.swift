/// The options several commands share, declared once: every command's spec lists the ones it accepts, and the
/// shared readers (``CommandContext``, ``VerifySettings``, ``APIClientSettings``) read them by these specs.
enum SharedOptions {
    /// `--data DIR`: the file log's directory.
    static let data = OptionSpec(
        "--data", value: "DIR", "The ledger's home (default: $LEDGER_DATA, else ./Events).")
    /// `--store URL`: the ledger in PostgreSQL instead.
    static let store = OptionSpec(
        "--store", value: "URL",
        "Keep the ledger in PostgreSQL: postgres://… (default: $LEDGER_STORE, else the file log in --data).")
    /// `--json`: one JSON document on stdout.
    static let json = OptionSpec("--json", "Print one JSON document on stdout.")
    /// `--catalog FILE`: the products a simulation sells (`simulate` only: every other command reads the catalog
    /// from the log, and refuses the option with ``catalogMoved``).
    static let catalog = OptionSpec(
        "--catalog", value: "FILE", "Simulate the products of FILE (JSON, the shape 'ledger catalog --json' prints).")

    /// Why a command other than `simulate` refuses `--catalog`.
    static let catalogMoved =
        "--catalog is no longer taken: the catalog now comes from the log, so that every reader gets the same "
        + "answers; 'ledger catalog' shows the version in force and 'ledger catalog set FILE --from T --reason R "
        + "--operator O' records a new one"

    /// `--environment ENV` of the commands that write or ask Apple.
    static let environment = OptionSpec(
        "--environment", value: "ENV", "sandbox or production to accept (default: the one the data is bound to).")
    /// `--environment ENV` of `inspect`, which writes nothing and also accepts Apple's two local environments.
    static let inspectEnvironment = OptionSpec(
        "--environment", value: "ENV", "sandbox, production, xcode or local-testing (the last two skip the signature).")
    /// `--bundle-id ID`.
    static let bundleId = OptionSpec(
        "--bundle-id", value: "ID",
        "The app's bundle identifier to accept (default: the one the data is bound to; a first write needs it).")
    /// `--app-apple-id N`.
    static let appAppleId = OptionSpec(
        "--app-apple-id", value: "N",
        "The app's Apple ID (required with production; default: the one the data is bound to).")
    /// `--trust-root FILE`, repeatable.
    static let trustRoot = OptionSpec(
        "--trust-root", value: "FILE", repeatable: true,
        "Trusted roots: a DER certificate or a PEM file of one or more (or $LEDGER_TRUST_ROOTS, colon-separated).")
    /// The verification flags (VERIFY FLAGS in the usage lines), read by ``VerifySettings``.
    static let verify = [environment, bundleId, appAppleId, trustRoot]
    /// `inspect`'s verification flags.
    static let inspectVerify = [inspectEnvironment, bundleId, appAppleId, trustRoot]

    /// `--user ID`.
    static let user = OptionSpec("--user", value: "ID", "The integer user id of the app's appAccountToken scheme.")
    /// `--account-token UUID`.
    static let accountToken = OptionSpec("--account-token", value: "UUID", "An appAccountToken.")
    /// `--original-transaction-id ID`.
    static let originalTransactionId = OptionSpec(
        "--original-transaction-id", value: "ID", "A subscription's original transaction id.")
    /// The subject flags (SUBJECT in the usage lines), read by ``CommandContext/subject()``.
    static let subject = [user, accountToken, originalTransactionId]

    /// `--reason TEXT` of an operator record.
    static let reason = OptionSpec("--reason", value: "TEXT", "Why (kept in the record).")
    /// `--operator NAME` of an operator record.
    static let operatorName = OptionSpec("--operator", value: "NAME", "Who (kept in the record).")
    /// The operator flags of `link`, `correct` and `void`.
    static let operatorFields = [reason, operatorName]

    /// `--key-file FILE` of the App Store Server API.
    static let keyFile = OptionSpec(
        "--key-file", value: "FILE", "The App Store Connect in-app purchase key (.p8) (or $LEDGER_APPSTORE_KEY_FILE).")
    /// `--key-id K`.
    static let keyId = OptionSpec("--key-id", value: "K", "The key's id (or $LEDGER_APPSTORE_KEY_ID).")
    /// `--issuer-id I`.
    static let issuerId = OptionSpec(
        "--issuer-id", value: "I", "The issuer id from App Store Connect (or $LEDGER_APPSTORE_ISSUER_ID).")
    /// `--api-base-url URL`.
    static let apiBaseURL = OptionSpec(
        "--api-base-url", value: "URL",
        "The App Store Server API (default: Apple's production or sandbox server, by the data's environment).")
    /// `--api-ca-file FILE`.
    static let apiCAFile = OptionSpec(
        "--api-ca-file", value: "FILE", "PEM CA certificates to trust instead of the system's store (tests).")
    /// The App Store Server API flags, read by ``APIClientSettings``.
    static let apiClient = [keyFile, keyId, issuerId, apiBaseURL, apiCAFile]

    /// The sentence on time values in help.
    static let timeHelp = "Times: ISO 8601 UTC (2026-03-01T00:00:00Z) or integer milliseconds since the epoch."
}
