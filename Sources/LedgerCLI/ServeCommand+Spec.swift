/// `ledger serve`'s options and help, with its help sections.
extension ServeCommand {
    /// `--host HOST`.
    static let host = OptionSpec("--host", value: "HOST", "Address to bind (default 127.0.0.1).")
    /// `--port PORT`.
    static let port = OptionSpec("--port", value: "PORT", "Port (default 8080; 0 picks a free one).")
    /// `--webhook-listen HOST:PORT`.
    static let webhookListen = OptionSpec(
        "--webhook-listen", value: "HOST:PORT",
        "The webhook's own address (with --api-listen, instead of --host/--port).")
    /// `--api-listen HOST:PORT`.
    static let apiListen = OptionSpec(
        "--api-listen", value: "HOST:PORT", "The read API's own address (with --webhook-listen).")
    /// `--read-token-file F`.
    static let readTokenFile = OptionSpec(
        "--read-token-file", value: "F",
        "File holding the bearer token required on read endpoints (or $LEDGER_READ_TOKEN).")
    /// `--admin-token-file F`.
    static let adminTokenFile = OptionSpec(
        "--admin-token-file", value: "F",
        "File holding the bearer token for admin endpoints, off without one (or $LEDGER_ADMIN_TOKEN).")
    /// `--read-token T`.
    static let readToken = OptionSpec(
        "--read-token", value: "T", "The read token itself; visible in ps, prefer the file.")
    /// `--admin-token T`.
    static let adminToken = OptionSpec(
        "--admin-token", value: "T", "The admin token itself; visible in ps, prefer the file.")
    /// `--reconcile-every DURATION`.
    static let reconcileEvery = OptionSpec(
        "--reconcile-every", value: "DURATION",
        "Run reconcile --from-api on this schedule (30s, 15m, 1h) with the key flags below.")
    /// `--reconcile-since T`.
    static let reconcileSince = OptionSpec(
        "--reconcile-since", value: "T",
        "Where the first scheduled pull starts, with no cursor yet (default: four days back).")
    /// `--reconcile-degraded-after DURATION`.
    static let reconcileDegradedAfter = OptionSpec(
        "--reconcile-degraded-after", value: "DURATION",
        "/healthz says degraded once scheduled pulls fail this long (default: 3 runs, at least 1h).")
    /// `--consumption auto|off`.
    static let consumption = OptionSpec(
        "--consumption", value: "MODE",
        "auto: answer each CONSUMPTION_REQUEST with Send Consumption Information (key flags below); off (default).")
    /// `--consumption-consent yes|no`.
    static let consumptionConsent = OptionSpec(
        "--consumption-consent", value: "yes|no",
        "With --consumption auto (required): whether the app's customers consented to share consumption data.")

    /// `ledger serve`: the listeners, the tokens, the scheduled pull, the consumption answers.
    static let spec = CommandSpec(
        name: "serve", summary: "The webhook and the backend's read API over HTTP/1.1.",
        usage: [
            "serve [VERIFY FLAGS] [--data DIR | --store URL] [--host 127.0.0.1] [--port 8080]"
                + " [--read-token-file F] [--admin-token-file F]"
                + " [--reconcile-every DURATION] [--consumption auto --consumption-consent yes|no]"
                + " [--key-file F --key-id K --issuer-id I]",
            "serve [VERIFY FLAGS] [--data DIR | --store URL] --webhook-listen HOST:PORT --api-listen HOST:PORT"
                + " [--read-token-file F] [--admin-token-file F]",
        ],
        discussion: """
            Prints 'listening on http://HOST:PORT' when ready (with two listeners, one line each, the \
            webhook's first); binds before it opens the data directory, so a busy port leaves nothing \
            behind. --webhook-listen and --api-listen split the routes: the webhook address answers only \
            POST /webhooks/apple and GET /healthz (put it behind the proxy), the API address every other \
            route and GET /healthz (keep it private); each has its own connections and threads. Binds 127.0.0.1 unless told otherwise (TLS \
            belongs to a reverse proxy in front), keeps connections alive, limits headers to 16 KiB and bodies \
            to 1 MiB, and logs one JSON line per request to stderr. SIGTERM/SIGINT: stop accepting, finish \
            in-flight requests, flush, exit 0.
            """,
        options: SharedOptions.verify + [
            SharedOptions.data, SharedOptions.store, host, port, webhookListen, apiListen, readTokenFile,
            adminTokenFile,
            readToken, adminToken, reconcileEvery, reconcileSince, reconcileDegradedAfter,
            consumption, consumptionConsent,
        ] + SharedOptions.apiClient,
        sections: [serveEndpoints, serveTokens, serveConsumption])

    /// `ledger help serve`: what `--consumption auto` sends, and when.
    static let serveConsumption = HelpSection(
        "CONSUMPTION REQUESTS",
        [
            .init(
                "",
                """
                --consumption auto answers every CONSUMPTION_REQUEST the log receives (through the webhook or a \
                scheduled pull) with Send Consumption Information (PUT /inApps/v2/transactions/consumption/ID), on \
                a thread beside the webhook: the webhook answers Apple at once, and a failed send never stops it. \
                It needs the App Store Server API key flags (or their environment variables) and \
                --consumption-consent: yes when the app's terms obtain its customers' consent to share consumption \
                data with Apple, no otherwise. With no, nothing is sent (Apple refuses consumption information \
                whose customerConsented is not true) and each request is logged as not answered.
                """),
            .init(
                "",
                """
                The body, from the ledger's facts: customerConsented true; deliveryStatus DELIVERED (the \
                transaction is in the ledger, verified); sampleContentProvided true when the subscription began \
                with a free trial (an introductory offer at price 0) no later than the transaction; no \
                consumptionPercentage (Apple computes it for auto-renewable subscriptions) and no \
                refundPreference. Each answer is logged on stderr ('consumption: answered …' with the body).
                """),
            .init(
                "",
                """
                Within Apple's 12 hours from the notification's signedDate: 429, 5xx, a refused token and network \
                failures are retried (the client's backoff, then again after 1 minute, doubling up to an hour); \
                another 4xx is logged and not sent again; a request past its 12 hours is logged and dropped. The \
                data directory's consumption-answers file (Events/README.md) holds how far the log was read and \
                the requests still pending, written before anything is sent: a restart neither forgets nor \
                resends one. The first start looks at the records of the last 12 hours. /metrics adds \
                ledger_consumption_answers_total{outcome} (sent, failed, expired, no_consent), \
                ledger_consumption_errors_total{code} (Apple's errorCode, http_<status>, transport, …) and \
                ledger_consumption_pending.
                """),
        ])

    /// `ledger help serve`: the routes and their answers.
    static let serveEndpoints = HelpSection(
        "ENDPOINTS",
        [
            .init(
                "POST /webhooks/apple",
                """
                Apple's request body, as sent. 200 only once the record is durable (or was a duplicate); 400 \
                unreadable body; 413 over 1 MiB; 422 verification failed, naming Apple's status; 503 with \
                Retry-After when the log cannot be written (Apple retries).
                """),
            .init(
                "GET /v1/users/{id}/entitlement",
                """
                ?at=T&knownAt=K: the 'ledger state' JSON. Also /v1/accounts/{uuid}/entitlement and \
                /v1/subscriptions/{originalTransactionId}/entitlement (Apple's id: decimal digits). 400 for a \
                bad id or time.
                """),
            .init(
                "GET /v1/users/{id}/history",
                "?asOf=T&knownAt=K: the 'ledger history' JSON; also under /v1/accounts/… and /v1/subscriptions/…."),
            .init(
                "GET /v1/events",
                """
                ?after=SEQ&limit=N&wait=S: the gap-free catch-up feed {"events":[…],"next":SEQ} (limit 100 by \
                default, at most 1000), long-polling up to S seconds (at most 60). SEQ beyond the head is 400 \
                CURSOR_AHEAD, naming the head (a cursor from before a restore). Pages and histories run a few at \
                once, the rest queued; 503 with Retry-After when the queue is full.
                """),
            .init("GET /v1/digest", #"{"seq":N,"head":"HEX","at":"…"}, the head to pin."#),
            .init("POST /v1/corrections", "An operator correction, as 'ledger correct' (admin)."),
            .init(
                "POST /v1/links",
                #"An operator link, as 'ledger link' (admin); "reassign":true moves an owned subscription (404 unknown subscription, 409 owned)."#
            ),
            .init(
                "POST /v1/voids",
                #"{"seq":N,"reason","operator"}: a void, as 'ledger void' (admin); 404 unknown seq, 409 a void of a void."#
            ),
            .init("GET /healthz", #"{"status":"ok","head":SEQ}; no token."#),
            .init("GET /metrics", "Prometheus text format."),
            .init("GET /openapi.yaml", "The OpenAPI 3.1 document; no token."),
            .init(
                "",
                """
                Errors are {"error":{"status":"…","message":"…"}}; an unknown path is 404, a known path with \
                another method 405, a query parameter given twice 400. 503 with Retry-After when storage is \
                unavailable.
                """),
        ])

    /// `ledger help serve`: who may call what.
    static let serveTokens = HelpSection(
        "TOKENS",
        [
            .init(
                "",
                """
                Read endpoints (entitlement, history, events, digest, metrics) need 'Authorization: Bearer T' \
                when a read token is set, and are open without it. Admin endpoints (corrections, links, voids) need \
                the admin bearer token and answer 403 when the server was started without one. A missing \
                or wrong token is 401 with a WWW-Authenticate challenge; tokens are compared in constant time. \
                The webhook, /healthz and /openapi.yaml need no token.
                """),
            .init(
                "",
                """
                Each token comes from one source: a file (--read-token-file F, --admin-token-file F: its text, \
                white space around it trimmed; a warning when other users can read it), the environment \
                ($LEDGER_READ_TOKEN, $LEDGER_ADMIN_TOKEN), or the command line (--read-token T, --admin-token T: \
                visible to every user through ps, so a warning). Two sources for one token is a usage error. \
                No token is ever printed, logged or written to the data directory's LOCK.
                """),
        ])
}
