/// Every command of `ledger`, with its help: the contract in code (README.md's command reference describes it).
public enum LedgerCommands {
    static let data = OptionSpec(
        "--data", value: "DIR", "The ledger's home (default: $LEDGER_DATA, else ./Events).")
    static let store = OptionSpec(
        "--store", value: "URL",
        "Keep the ledger in PostgreSQL: postgres://… (default: $LEDGER_STORE, else the file log in --data).")
    static let json = OptionSpec("--json", "Print one JSON document on stdout.")
    static let catalog = OptionSpec(
        "--catalog", value: "FILE", "Load the product catalog from FILE (JSON; each productId once).")
    static let verify: [OptionSpec] = [
        OptionSpec(
            "--environment", value: "ENV", "sandbox or production to accept (default: the one the data is bound to)."),
        OptionSpec(
            "--bundle-id", value: "ID",
            "The app's bundle identifier to accept (default: the one the data is bound to; a first write needs it)."),
        OptionSpec(
            "--app-apple-id", value: "N",
            "The app's Apple ID (required with production; default: the one the data is bound to)."),
        OptionSpec(
            "--trust-root", value: "FILE", repeatable: true,
            "Trusted roots: a DER certificate or a PEM file of one or more (or $LEDGER_TRUST_ROOTS, colon-separated)."),
    ]
    /// `inspect` writes nothing and also accepts Apple's two local environments.
    static let inspectVerify: [OptionSpec] =
        [
            OptionSpec(
                "--environment", value: "ENV",
                "sandbox, production, xcode or local-testing (the last two skip the signature).")
        ] + verify.dropFirst()
    static let subject: [OptionSpec] = [
        OptionSpec("--user", value: "ID", "The integer user id of the app's appAccountToken scheme."),
        OptionSpec("--account-token", value: "UUID", "An appAccountToken."),
        OptionSpec(
            "--original-transaction-id", value: "ID", "A subscription's original transaction id."),
    ]
    static let operatorOptions: [OptionSpec] = [
        OptionSpec("--reason", value: "TEXT", "Why (kept in the record)."),
        OptionSpec("--operator", value: "NAME", "Who (kept in the record)."),
    ]
    static let timeHelp =
        "Times: ISO 8601 UTC (2026-03-01T00:00:00Z) or integer milliseconds since the epoch."

    /// All commands, in help order.
    public static let all: [CommandSpec] = [
        CommandSpec(
            name: "ingest", summary: "Verify App Store notifications and append them to the log.",
            usage: ["ingest [VERIFY FLAGS] [--data DIR | --store URL] [--json] [FILE|-]..."],
            discussion: """
                Input is JSON Lines: each line a request body {"signedPayload":"…"} exactly as Apple POSTs it \
                (blank lines ignored). Each line is verified and appended durably as one record, recognised as a \
                duplicate (same notificationUUID), or rejected into the quarantine with its reason. Prints \
                {"accepted":N,"duplicates":N,"rejected":N}. Exit 0 when nothing was rejected, else 1. A FILE that \
                cannot be opened is refused before anything is written.
                """,
            options: verify + [data, store, json, catalog], positionals: 0...Int.max, positionalName: "FILE|-"),
        CommandSpec(
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
            options: inspectVerify + [
                OptionSpec("--as", value: "KIND", "notification (default), transaction or renewal."), json,
                catalog,
            ], positionals: 1...1, positionalName: "FILE|-"),
        CommandSpec(
            name: "state", summary: "A subject's entitlement at valid time T as known at K.",
            usage: [
                "state [--data DIR | --store URL] (--user ID | --account-token UUID | --original-transaction-id ID)"
                    + " [--at T] [--known-at K] [--json]"
            ],
            discussion: "An unknown subject is not an error. " + timeHelp,
            options: [data, store] + subject + [
                OptionSpec("--at", value: "T", "Valid time (default: now)."),
                OptionSpec("--known-at", value: "K", "Only records appended by K (default: all)."), json,
                catalog,
            ]),
        CommandSpec(
            name: "history", summary: "Every record about a subject, in effective-time order.",
            usage: ["history [--data DIR | --store URL] SUBJECT [--as-of T] [--known-at K] [--json | --html]"],
            discussion:
                "--html writes a self-contained page (timeline and device-limit chart) on stdout.",
            options: [data, store] + subject + [
                OptionSpec("--as-of", value: "T", "Only records effective at or before T."),
                OptionSpec("--known-at", value: "K", "Only records appended by K."), json,
                OptionSpec("--html", "Write a self-contained HTML page."), catalog,
            ]),
        CommandSpec(
            name: "verify", summary: "Check every record's checksum and the hash chain.",
            usage: ["verify [--data DIR | --store URL] [--expect-head HEX [--expect-seq N]] [--json]"],
            discussion:
                "Also checks that every record decodes as a ledger record, the evidence packs' checksums and that "
                + "every record's evidence is there. Exit 1 naming the first bad segment (or pack) and offset, the "
                + "first record that cannot be read or whose evidence is missing and how many are, or when the head "
                + "differs from --expect-head. "
                + "With --expect-seq N the pinned hash is record N's (the seq `digest` printed with it), so a pin "
                + "still proves nothing up to N was rewritten after the log has grown.",
            options: [
                data, store, OptionSpec("--expect-head", value: "HEX", "The head hash pinned earlier."),
                OptionSpec("--expect-seq", value: "N", "The seq the pinned hash is of (default: the head)."), json,
                catalog,
            ]),
        CommandSpec(
            name: "export", summary: "Write the log as JSON Lines.",
            usage: ["export [--data DIR | --store URL] [--from-seq N]"],
            options: [
                data, store, OptionSpec("--from-seq", value: "N", "Start at sequence N (default 1)."), catalog,
            ]),
        CommandSpec(
            name: "import", summary: "Append an export, idempotently.",
            usage: ["import [--data DIR | --store URL] [--batch N] FILE|-"],
            discussion:
                "Reads the export twice, a batch at a time (standard input is spooled to $TMPDIR): first every line is "
                + "checked and nothing appended, then the records are appended.",
            options: [
                data, store,
                OptionSpec(
                    "--batch", value: "N", "Records appended at once (default 1024; each batch is held in memory)."),
                json, catalog,
            ],
            positionals: 1...1, positionalName: "FILE|-"),
        CommandSpec(
            name: "rebuild", summary: "Re-derive every projection, index and snapshot from the log.",
            usage: ["rebuild [--data DIR | --store URL]"], options: [data, store, json, catalog]),
        CommandSpec(
            name: "repair", summary: "Cut a torn tail after the last valid record (kept aside).",
            usage: ["repair [--data DIR | --store URL]"],
            discussion:
                "Never drops a valid record; refuses (exit 1, explaining) when damage is not at the tail.",
            options: [data, store, json, catalog]),
        CommandSpec(
            name: "catalog", summary: "The products and their device limits and prices.",
            usage: ["catalog [--json] [--catalog FILE]"], options: [json, catalog]),
        CommandSpec(
            name: "link", summary: "Attach an orphan subscription to a user (appends a link record).",
            usage: [
                "link --original-transaction-id ID (--user N | --account-token UUID) [--reassign] --reason TEXT "
                    + "--operator NAME"
            ],
            discussion: """
                Refuses (exit 1, nothing appended) a subscription the ledger has no record of, and one owned by \
                another user or account unless --reassign says the move is meant; a reassigning link names the \
                previous owner.
                """,
            options: [data, store] + subject + [
                OptionSpec("--reassign", "Move a subscription another user or account owns (the record names them).")
            ] + operatorOptions + [json, catalog]),
        CommandSpec(
            name: "void", summary: "Take one record's facts out of every answer (appends a void record).",
            usage: ["void --seq N --reason TEXT --operator NAME [--data DIR | --store URL] [--json]"],
            discussion: """
                From the void's recording time on, record N counts in no answer (state, history's fold, \
                projections); --known-at before the void still shows what was believed then. Record N stays in \
                the log, marked voidedBySeq in history. Voiding the same record again appends nothing (exit 0); \
                a seq of 0 or beyond the head, or a record that is itself a void, is refused (exit 1).
                """,
            options: [data, store, OptionSpec("--seq", value: "N", "The record to void.")] + operatorOptions + [
                json, catalog,
            ]),
        CommandSpec(
            name: "quarantine", summary: "List rejected payloads with time, status and reason.",
            usage: ["quarantine [--data DIR] [--json]"], options: [data, json, catalog]),
        CommandSpec(
            name: "reconcile",
            summary: "Import App Store Server API or verifyReceipt responses: only new facts.",
            usage: [
                "reconcile [VERIFY FLAGS] [--data DIR | --store URL] [--json] FILE",
                "reconcile --from-api --since T [--until T] --key-file F --key-id K --issuer-id I [--api-base-url URL] "
                    + "[--api-ca-file F] [VERIFY FLAGS] [--data DIR | --store URL]",
            ],
            discussion: """
                FILE holds App Store Server API responses (transaction history, subscription statuses) or legacy \
                verifyReceipt responses. With --from-api the ledger fetches them itself: Get Notification History \
                for the window (every page; windows over 180 days split), each notification verified exactly as \
                the webhook verifies it, then Get Transaction History for every subscription the window touched. \
                Only facts the log lacks are appended. Prints {"appended":N,"alreadyKnown":N,"rejected":N}; exit 0 \
                when nothing was rejected, else 1 (a refused item is named with Apple's status, and nothing of its \
                input is appended). 5xx and 429 answers are retried with backoff (honouring Retry-After); a 401 \
                renews the token once.
                """,
            options: verify + [
                data, store, json, catalog,
                OptionSpec("--from-api", "Pull from the App Store Server API instead of reading FILE."),
                OptionSpec("--since", value: "T", "With --from-api: the window's start."),
                OptionSpec("--until", value: "T", "With --from-api: the window's end (default: now)."),
                OptionSpec("--only-failures", "With --from-api: only notifications Apple failed to deliver."),
            ] + APIClientSettings.options, positionals: 0...1, positionalName: "FILE"),
        CommandSpec(
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
                consumption: Send Consumption Information, the answer to a CONSUMPTION_REQUEST (within its 12 hours), \
                from a JSON file holding Apple's ConsumptionRequest fields (customerConsented must be true).
                """,
            options: verify + [data, store, json, catalog] + APIClientSettings.options + [
                OptionSpec("--days", value: "N", "extend: the days to add, 1 to 90."),
                OptionSpec("--reason-code", value: "C", "extend: Apple's extendReasonCode, 0 to 3."),
                OptionSpec("--request-id", value: "UUID", "extend: the request's id (a retry reuses it)."),
                OptionSpec("--file", value: "FILE", "consumption: the ConsumptionRequest, as JSON."),
            ], positionals: 1...2,
            positionalName: "SUBCOMMAND ID"),
        CommandSpec(
            name: "audit", summary: "Re-verify every evidence payload of a subject and its chain links.",
            usage: ["audit [--data DIR | --store URL] SUBJECT [VERIFY FLAGS] [--json]"],
            options: [data, store] + subject + verify + [json, catalog]),
        CommandSpec(
            name: "digest", summary: "The head sequence and hash, to pin outside the ledger.",
            usage: ["digest [--data DIR | --store URL] [--json]"], options: [data, store, json, catalog]),
        CommandSpec(
            name: "report", summary: "Finance reports: sales, events, active, mrr, churn.",
            usage: [
                "report KIND --from T --to T [--by day|week|month] [--csv | --json | --svg] [--data DIR | --store URL]"
            ],
            options: [
                data, store, OptionSpec("--from", value: "T", "Start (inclusive)."),
                OptionSpec("--to", value: "T", "End (exclusive)."),
                OptionSpec("--by", value: "UNIT", "day, week or month (default day)."),
                OptionSpec("--csv", "CSV output."), json, OptionSpec("--svg", "An SVG chart."), catalog,
            ], positionals: 1...1, positionalName: "KIND"),
        CommandSpec(
            name: "correct", summary: "Append an operator correction honoured from its effective time.",
            usage: [
                "correct SUBJECT (--grant PRODUCT --from T --until T | --revoke --from T) --reason TEXT --operator NAME"
            ],
            options: [data, store] + subject + [
                OptionSpec("--grant", value: "PRODUCT", "Grant this product's devices (a product of the catalog)."),
                OptionSpec("--revoke", "Revoke the subject's entitlement."),
                OptionSpec("--from", value: "T", "Effective from."),
                OptionSpec("--until", value: "T", "Grant until."),
            ] + operatorOptions + [json, catalog]),
        CommandSpec(
            name: "simulate", summary: "Write a realistic signed population with its truth.",
            usage: [
                "simulate --users N --months M --seed S --out DIR [--environment sandbox|production] [--sandbox-rate R]"
            ],
            options: [
                OptionSpec("--users", value: "N", "Number of users."),
                OptionSpec("--months", value: "M", "Months simulated."),
                OptionSpec("--seed", value: "S", "Random seed (same seed, same bytes)."),
                OptionSpec("--out", value: "DIR", "Output directory."),
                OptionSpec("--environment", value: "ENV", "sandbox or production (default production)."),
                OptionSpec(
                    "--sandbox-rate", value: "R",
                    "Sandbox renewal rate (e.g. 5m: monthly renews every 5 minutes)."),
                OptionSpec("--start", value: "T", "Start of the simulated period."), catalog,
            ]),
        CommandSpec(
            name: "demo", summary: "The end-to-end showcase in Events/demo.",
            usage: ["demo [--data DIR] [--users N] [--months M] [--seed S]"],
            options: [
                OptionSpec("--data", value: "DIR", "Where to run (default Events/demo)."),
                OptionSpec("--users", value: "N", "Users (default 1000)."),
                OptionSpec("--months", value: "M", "Months (default 12)."),
                OptionSpec("--seed", value: "S", "Seed (default 42)."), catalog,
            ]),
        serve,
    ]
}
