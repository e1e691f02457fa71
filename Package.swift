// swift-tools-version:6.0
// The Visla subscription ledger. No Swift package dependencies: system C libraries only,
// each behind one `systemLibrary` target (see README, "Building").
import PackageDescription

let package = Package(
    name: "ledger",
    products: [
        .executable(name: "ledger", targets: ["ledger"])
    ],
    targets: [
        // System libraries.
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CPostgres", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // Linux epoll (<sys/epoll.h>, part of glibc), which Swift's Glibc module leaves out; LedgerSystem wraps it.
        .systemLibrary(name: "CLinux"),

        // The shape every module's error shares: opaque codes, the detail, equality on the code. Pure Swift.
        .target(name: "LedgerErrors"),
        // Pure domain: catalog, records, the entitlement fold. No I/O, no clocks, no Foundation.
        .target(name: "LedgerCore", dependencies: ["LedgerErrors"]),
        // A small, fast JSON value, parser and writer (no Foundation on the hot path).
        .target(name: "LedgerJSON", dependencies: ["LedgerErrors"]),
        // The one funnel for system calls, the injectable file layer, and the few generic helpers every target
        // shares (threads, binary search).
        .target(name: "LedgerSystem", dependencies: ["LedgerErrors", "CLinux"]),
        // Digests, ECDSA and X.509 over libcrypto.
        .target(name: "LedgerCrypto", dependencies: ["CCrypto", "LedgerErrors"]),
        // The CPU instructions Swift has no spelling for: crc32 for CRC-32C (LedgerLog falls back to Swift
        // without it) and the cache-line prefetch.
        .target(name: "CCPU"),
        // The store contract: RecordStore and its capabilities, entries, records, the chain, the store's error.
        .target(name: "LedgerStore", dependencies: ["LedgerSystem", "LedgerCrypto"]),
        // The append-only, checksummed, hash-chained log: the embedded store.
        .target(name: "LedgerLog", dependencies: ["LedgerStore", "LedgerSystem", "LedgerCrypto", "CCPU"]),
        // The App Store boundary: JWS verification, models, mapping to ledger records.
        .target(
            name: "LedgerAppStore",
            dependencies: ["LedgerCore", "LedgerJSON", "LedgerCrypto", "LedgerSystem"]),
        // The App Store Server API client: the in-app purchase key's JWT, HTTPS over libcurl, retries, endpoints.
        .target(
            name: "LedgerAppStoreAPI",
            dependencies: ["CCurl", "LedgerAppStore", "LedgerCore", "LedgerJSON", "LedgerCrypto", "LedgerSystem"]),
        // The App Store's side, for tests and the simulator only: an Apple-style PKI (Apple's OIDs) and a JWS
        // signer. Never linked into verification.
        .target(
            name: "LedgerAppStoreTestKit",
            dependencies: ["LedgerAppStore", "LedgerCrypto", "LedgerJSON"],
            path: "Sources/TestSupport/LedgerAppStoreTestKit"),
        // The PostgreSQL store: the same RecordStore contract over libpq (README, "PostgreSQL").
        .target(
            name: "LedgerPostgres",
            dependencies: ["CPostgres", "LedgerStore", "LedgerCrypto", "LedgerSystem"]),
        // Wires log, App Store boundary and fold: ingest, projections, queries, reports.
        .target(
            name: "LedgerService",
            dependencies: [
                "LedgerCore", "LedgerJSON", "LedgerLog", "LedgerStore", "LedgerAppStore", "LedgerSystem",
                "LedgerCrypto",
            ]),
        // HTTP/1.1 on POSIX sockets.
        .target(name: "LedgerHTTP", dependencies: ["LedgerSystem", "LedgerJSON"]),
        // Load client for the HTTP server (Scripts/load).
        .executableTarget(
            name: "LedgerLoad", dependencies: ["LedgerHTTP", "LedgerJSON", "LedgerSystem", "LedgerTesting"],
            path: "Sources/Tools/LedgerLoad"),
        // The fuzz targets' checks and the replayer of their findings (Scripts/fuzz): the HTTP parser and framer;
        // JSON, bodies, verification, models, mapping.
        .executableTarget(
            name: "LedgerFuzz",
            dependencies: [
                "LedgerHTTP", "LedgerAppStoreTestKit", "LedgerAppStore", "LedgerCore", "LedgerCrypto", "LedgerJSON",
                "LedgerTesting",
            ],
            path: "Sources/Tools/LedgerFuzz"),
        // The ledger's HTTP API: routes over the service.
        .target(
            name: "LedgerAPI",
            dependencies: [
                "LedgerCore", "LedgerJSON", "LedgerHTTP", "LedgerService", "LedgerAppStore", "LedgerStore",
                "LedgerCrypto",
            ]),
        // Realistic signed populations with their truth.
        .target(
            name: "LedgerSimulator",
            dependencies: [
                "LedgerAppStoreTestKit", "LedgerCore", "LedgerJSON", "LedgerCrypto", "LedgerAppStore", "LedgerSystem",
            ]),
        // Command-line parsing and commands.
        .target(
            name: "LedgerCLI",
            dependencies: [
                "LedgerCore", "LedgerJSON", "LedgerLog", "LedgerStore", "LedgerAppStore", "LedgerService",
                "LedgerHTTP", "LedgerSimulator", "LedgerSystem", "LedgerAPI", "LedgerPostgres", "LedgerAppStoreAPI",
                "LedgerAppStoreTestKit",
            ]),
        .executableTarget(name: "ledger", dependencies: ["LedgerCLI"]),
        // The crash test's writer and checker (Scripts/crash-test): appends, acknowledges, gets SIGKILLed.
        .executableTarget(
            name: "LedgerLogTorture", dependencies: ["LedgerLog", "LedgerStore", "LedgerSystem"],
            path: "Sources/Tools/LedgerLogTorture"),
        // The HTTP crash test's sender and checker, and signed traffic for it and the load test
        // (Scripts/crash-test --http, Scripts/load --real).
        .executableTarget(
            name: "LedgerServeTorture",
            dependencies: [
                "LedgerHTTP", "LedgerJSON", "LedgerCore", "LedgerService", "LedgerAppStore", "LedgerSystem",
                "LedgerTesting",
            ], path: "Sources/Tools/LedgerServeTorture"),
        // Test support: record builders, temporary directories, a test PKI, a fake App Store Server API, the HTTP
        // durability checks' acknowledgements file.
        .target(
            name: "LedgerTesting",
            dependencies: [
                "LedgerAppStoreTestKit", "LedgerCore", "LedgerCrypto", "LedgerAppStore", "LedgerJSON", "LedgerSystem",
                "LedgerHTTP",
            ], path: "Sources/TestSupport/LedgerTesting"),
        // Signed notifications from the test PKI for end-to-end scripts (Scripts/postgres-two-servers).
        .executableTarget(
            name: "LedgerSignedFixtures",
            dependencies: ["LedgerTesting", "LedgerCore", "LedgerJSON", "LedgerSystem"],
            path: "Sources/Tools/LedgerSignedFixtures"),
        // Benchmarks, with SQLite as the peer.
        .executableTarget(
            name: "LedgerBench",
            dependencies: [
                "LedgerCore", "LedgerLog", "LedgerStore", "LedgerService", "LedgerSystem", "LedgerCrypto",
                "LedgerAppStore",
                "LedgerSimulator", "LedgerTesting", "CSQLite", "LedgerPostgres", "LedgerJSON",
            ], path: "Sources/Tools/LedgerBench"),

        .testTarget(name: "LedgerCoreTests", dependencies: ["LedgerCore", "LedgerTesting"]),
        .testTarget(name: "LedgerJSONTests", dependencies: ["LedgerJSON"]),
        .testTarget(name: "LedgerCryptoTests", dependencies: ["LedgerCrypto", "LedgerSystem", "LedgerTesting"]),
        .testTarget(
            name: "LedgerLogTests", dependencies: ["LedgerLog", "LedgerStore", "LedgerSystem", "LedgerTesting"]),
        .testTarget(
            name: "LedgerAppStoreTests",
            dependencies: ["LedgerAppStoreTestKit", "LedgerAppStore", "LedgerTesting", "LedgerCore", "LedgerJSON"]),
        .testTarget(
            name: "LedgerAppStoreAPITests",
            dependencies: [
                "LedgerAppStoreAPI", "LedgerAppStore", "LedgerTesting", "LedgerCrypto", "LedgerJSON", "LedgerHTTP",
                "LedgerCore",
            ]),
        .testTarget(
            name: "LedgerServiceTests",
            dependencies: [
                "LedgerService", "LedgerTesting", "LedgerCore", "LedgerLog", "LedgerStore", "LedgerAppStore",
            ]),
        .testTarget(name: "LedgerHTTPTests", dependencies: ["LedgerHTTP", "LedgerJSON", "LedgerSystem"]),
        .testTarget(
            name: "LedgerEndToEndTests",
            dependencies: [
                "LedgerService", "LedgerTesting", "LedgerCore", "LedgerAppStore", "LedgerLog", "LedgerStore",
                "LedgerSimulator",
            ]),
        .testTarget(
            name: "LedgerSimulatorTests",
            dependencies: [
                "LedgerSimulator", "LedgerCore", "LedgerJSON", "LedgerAppStore", "LedgerCrypto", "LedgerSystem",
                "LedgerTesting",
            ]),
        .testTarget(
            name: "LedgerAPITests",
            dependencies: [
                "LedgerAPI", "LedgerHTTP", "LedgerService", "LedgerTesting", "LedgerCore", "LedgerJSON", "LedgerLog",
                "LedgerStore",
                "LedgerSystem",
            ]),
        .testTarget(
            name: "LedgerCLITests",
            dependencies: [
                "LedgerAppStoreTestKit",
                "LedgerCLI", "LedgerTesting", "LedgerService", "LedgerSimulator", "LedgerLog", "LedgerStore",
                "LedgerHTTP",
                "LedgerAPI", "LedgerAppStore", "LedgerCore", "LedgerJSON",
            ]),
        .testTarget(
            name: "LedgerStoreConformanceTests",
            dependencies: [
                "LedgerPostgres", "LedgerLog", "LedgerStore", "LedgerService", "LedgerTesting", "LedgerCore",
                "LedgerSystem",
                "LedgerCrypto", "LedgerJSON", "LedgerCLI",
            ]),
    ]
)
