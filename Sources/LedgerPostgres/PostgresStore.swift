import LedgerCrypto
import LedgerStore
import LedgerSystem
import Synchronization

/// The ledger's records in PostgreSQL: the ``RecordStore`` contract over libpq, for deployments that need a
/// replicated, managed database and several ledger processes on one ledger.
///
/// Every handle may be a writer: writers in any number of processes are serialised by a transaction-scoped
/// advisory lock, under which each append reads the head, assigns seq = head + 1…, computes the chain hashes
/// exactly as the file log does (``LogFormat/chainHash(previous:seq:recordedAt:entry:)``), checks idempotency keys
/// and commits. A commit is durable when it returns (the server's `synchronous_commit`, `on` unless a DBA turned
/// it off; with synchronous replicas it also waits for them). Concurrent appends of one handle are
/// group-committed. Reads query the database each time (the head, the indexes), so a handle sees what other
/// processes appended; they use a second connection, so they never wait behind a commit.
///
/// The tables are described in ``PostgresSchema``. Call ``close()`` once, after every other call has returned.
public final class PostgresStore: RecordStore, DerivedFiles, RebuildableIndexes {
    let connectionString: String
    let requestedEnvironment: String?
    let requestedApp: AppIdentity?
    let clock: @Sendable () -> Int64
    let writer: Mutex<PostgresSession?>
    let reader: Mutex<PostgresSession?>
    let commits = GroupCommit()
    /// Idle connections for walks (``forEach(from:_:)``), each streaming one COPY at a time.
    let walkers = WalkConnections()
    /// Evidence put with `durable: false`, inserted by the next append's transaction (before its records).
    let pendingEvidence = Mutex<[HashedBytes]>([])
    /// The bound environment, once known (it never changes after that).
    let knownEnvironment = Mutex<String?>(nil)
    /// The bound app identity, once known (it only ever gains an App Apple ID after that).
    let knownIdentity = Mutex<AppIdentity?>(nil)
    /// The last head read, answered when the database cannot be reached (the head never goes back).
    let lastHead = Mutex<(seq: UInt64, hash: [UInt8], time: Int64)>((0, [], 0))
    let closed = Atomic<Bool>(false)
    /// The writer's turns indexing subject keys after the appends (``indexSubjects()``).
    let subjectIndexer = SubjectIndexer()
    /// The in-memory copy of the records that answers subject reads, when the handle was opened with one.
    let replica: SubjectReplica?

    /// The connection string without its password.
    public let path: String
    /// Whether this handle may append.
    public let isWriter: Bool
    /// Always nil: a transaction either committed or left nothing, so there is no torn tail to cut.
    public var recovery: RecoveryReport? { nil }
    /// Where the store lives and whether this handle writes; a transaction leaves no torn tail to recover.
    public var opening: StoreOpening { StoreOpening(path: path, isWriter: isWriter) }
    /// The environment and app the ledger is bound to.
    public var binding: StoreBinding { StoreBinding(environment: environment, app: appIdentity) }

    private init(
        connectionString: String, environment: String?, app: AppIdentity?, writable: Bool,
        clock: @escaping @Sendable () -> Int64, replicaLimit: Int, writerSession: sending PostgresSession?,
        readerSession: sending PostgresSession
    ) {
        self.replica = replicaLimit > 0 ? SubjectReplica(limit: replicaLimit) : nil
        self.connectionString = connectionString
        self.requestedEnvironment = environment
        self.requestedApp = app
        self.clock = clock
        self.isWriter = writable
        self.path = PostgresURL.redacted(connectionString)
        self.writer = Mutex(writerSession)
        self.reader = Mutex(readerSession)
    }

    /// Connects as a writer, creating the ledger's tables when they are missing.
    /// - Parameters:
    ///   - environment: the environment this writer writes; a ledger already bound to another one is refused with
    ///     `LogError.Code.environmentMismatch`. Nil: whatever the ledger is bound to.
    ///   - app: the app this writer writes for, recorded in `meta` with the first append (also into a ledger
    ///     bound before identities were recorded); a ledger bound to another app is refused with
    ///     `LogError.Code.appMismatch`. Nil: whatever the ledger is bound to.
    ///   - replicaLimit: when above 0, the handle copies the records into memory on a thread of its own, up to
    ///     this many bytes, and answers subject reads from the copy once it reaches the head (see
    ///     ``SubjectReplica``); for long-running processes. 0: every read queries the database.
    /// - Throws: `LogError.Code.io` when the server cannot be reached or refuses the schema;
    ///   `environmentMismatch`; `appMismatch`; `unsupportedVersion` for tables of a newer format.
    public static func openWriter(
        url connectionString: String, environment: String?, app: AppIdentity? = nil, replicaLimit: Int = 0,
        clock: @escaping @Sendable () -> Int64 = SystemClock.wallMilliseconds
    ) throws(LogError) -> PostgresStore {
        let session = try connect(connectionString)
        try session.createTables()
        if try session.execute(PostgresSchema.subjectsMarkMissing).bytes(0, 0) == [1] {
            try session.run(PostgresSchema.subjectsMarkMigration)
        }
        try ensureDurableCommits(session)
        let lagging = try subjectIndexLags(session)
        let store = PostgresStore(
            connectionString: connectionString, environment: environment, app: app, writable: true, clock: clock,
            replicaLimit: replicaLimit, writerSession: session, readerSession: try connect(connectionString))
        if let bound = store.environment, let environment, bound != environment {
            store.close()
            throw mismatch(bound: bound, wanted: environment, store.path)
        }
        if let app, let bound = store.storedIdentity,
            let refusal = bound.refusal(of: app, at: "the ledger at \(store.path)")
        {
            store.close()
            throw refusal
        }
        if lagging { store.scheduleSubjectIndexing() }
        if let replica = store.replica { store.startReplica(replica) }
        return store
    }

    /// Connects as a reader: no tables are created (a database without them reads as an empty ledger), and
    /// appends are refused. A reader may point at a streaming replica.
    /// `replicaLimit` as for ``openWriter(url:environment:app:replicaLimit:clock:)``.
    public static func openReader(url connectionString: String, replicaLimit: Int = 0) throws(LogError)
        -> PostgresStore
    {
        let store = PostgresStore(
            connectionString: connectionString, environment: nil, app: nil, writable: false,
            clock: SystemClock.wallMilliseconds, replicaLimit: replicaLimit,
            writerSession: nil, readerSession: try connect(connectionString))
        if let replica = store.replica { store.startReplica(replica) }
        return store
    }

    /// The environment the ledger is bound to, once anything was appended.
    public var environment: String? {
        if let known = knownEnvironment.withLock({ $0 }) { return known }
        let found = try? withReader { session throws(LogError) -> String? in
            guard try session.tablesExist() else { return nil }
            let result = try session.execute("SELECT environment, format FROM meta WHERE id = 1")
            guard result.rowCount == 1 else { return nil }
            return result.text(0, 0)
        }
        if let found { knownEnvironment.withLock { $0 = found } }
        return found
    }

    /// The app the ledger is bound to; for a writer whose ledger names none yet, the one it binds with its next
    /// append.
    public var appIdentity: AppIdentity? {
        storedIdentity ?? (isWriter ? requestedApp : nil)
    }

    /// The app identity `meta` holds, if any.
    var storedIdentity: AppIdentity? {
        if let known = knownIdentity.withLock({ $0 }) { return known }
        let found = try? withReader { session throws(LogError) -> AppIdentity? in
            guard try session.tablesExist() else { return nil }
            let result = try session.execute("SELECT \(PostgresSchema.identitySelect) FROM meta AS m WHERE id = 1")
            guard result.rowCount == 1 else { return nil }
            return Self.identity(result, 0, 0)
        }
        guard let found else { return nil }
        knownIdentity.withLock { $0 = found }
        return found
    }

    /// The identity in columns `column` (bundle id) and `column + 1` (App Apple ID) of a row, if it names one.
    static func identity(_ result: PostgresResult, _ row: Int, _ column: Int) -> AppIdentity? {
        guard !result.isNull(row, column) else { return nil }
        let appAppleId = result.isNull(row, column + 1) ? nil : Int64(result.text(row, column + 1))
        return AppIdentity(bundleId: result.text(row, column), appAppleId: appAppleId)
    }

    /// Indexes the records the subject index lacks (a writer), then closes the connections. Later calls fail with
    /// `LogError.Code.notWritable`.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if isWriter {
            subjectIndexer.close()
            // Left for the next writer when the database cannot be reached; reads find the records meanwhile.
            _ = try? catchUpSubjectIndex()
        }
        replica?.close()
        writer.withLock { $0 = nil }
        reader.withLock { $0 = nil }
        walkers.removeAll()
    }

    /// A new session whose prepared statements keep their generic plan.
    ///
    /// The subject reads (``PostgresQuery/subjectPayloads``) are two index scans whatever the key, but their
    /// generic plan is costed for a tail of 0.5% of the records (its bound is read in the statement), so the
    /// default `plan_cache_mode` plans them anew for each key: about 0.3 ms a query (p50 1.0 → 0.7 ms). Every
    /// statement of the store is a lookup by key or a range of it, for which the generic plan is the plan.
    static func connect(_ connectionString: String) throws(LogError) -> PostgresSession {
        let session: PostgresSession
        do {
            session = PostgresSession(try PostgresConnection(connectionString))
        } catch {
            throw PostgresSession.logError(error)
        }
        _ = try session.run("SET plan_cache_mode = force_generic_plan")
        return session
    }

    /// Turns `synchronous_commit = off` (a commit that returns before its WAL is flushed) back on for this
    /// connection: an acknowledged append must survive a crash.
    static func ensureDurableCommits(_ session: PostgresSession) throws(LogError) {
        let setting = try session.execute("SELECT current_setting('synchronous_commit')").text(0, 0)
        if setting == "off" { try session.run("SET synchronous_commit = on") }
    }

    static func mismatch(bound: String, wanted: String, _ path: String) -> LogError {
        LogError(
            .environmentMismatch,
            "the ledger at \(path) holds \(bound) records; refusing to write \(wanted) into it (use another "
                + "database or schema for \(wanted))")
    }

    static var closedError: LogError { LogError(.notWritable, "the store is closed; open it again") }

    /// Runs `body` on the writer connection, reconnecting first when it broke.
    func withWriter<R>(_ body: (PostgresSession) throws(LogError) -> sending R) throws(LogError) -> sending R {
        guard isWriter else { throw LogError(.notWritable, "this store was opened for reading; open it as a writer") }
        return try writer.withLock { session throws(LogError) -> sending R in
            guard !closed.load(ordering: .acquiring), let current = session else { throw Self.closedError }
            if try Self.heal(current) { try Self.ensureDurableCommits(current) }
            return try body(current)
        }
    }

    /// Runs `body` on the reader connection, reconnecting and trying once more when the connection broke.
    func withReader<R>(_ body: (PostgresSession) throws(LogError) -> sending R) throws(LogError) -> sending R {
        try reader.withLock { session throws(LogError) -> sending R in
            guard !closed.load(ordering: .acquiring), let current = session else { throw Self.closedError }
            try Self.heal(current)
            do throws(LogError) {
                return try body(current)
            } catch {
                guard !current.connection.isHealthy else { throw error }
                try Self.heal(current)
                return try body(current)
            }
        }
    }

    /// Reconnects a broken connection (a restarted server, or a failover when the connection string lists
    /// several hosts with `target_session_attrs=read-write`).
    /// - Returns: whether it reconnected.
    @discardableResult
    static func heal(_ session: PostgresSession) throws(LogError) -> Bool {
        guard !session.connection.isHealthy else { return false }
        do {
            try session.connection.reset()
        } catch {
            throw PostgresSession.logError(error)
        }
        session.forgetConnectionState()
        return true
    }
}

/// The idle connections of a store's walks. `@unchecked Sendable`: `idle` is only touched holding `lock`, and a
/// connection taken out is used by its taker alone until it gives it back.
final class WalkConnections: @unchecked Sendable {
    private let lock = ConditionLock()
    private var idle: [PostgresSession] = []
    /// The most idle connections kept.
    private let limit = 2

    /// An idle connection, if any.
    func take() -> PostgresSession? {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast()
    }

    /// Keeps a connection whose walk ended cleanly for the next walk (closes it when enough are idle).
    func give(_ session: PostgresSession) {
        lock.lock()
        defer { lock.unlock() }
        if idle.count < limit { idle.append(session) }
    }

    /// Closes every idle connection.
    func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        idle = []
    }
}
