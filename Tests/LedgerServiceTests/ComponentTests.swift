import LedgerCore
import LedgerLog
import LedgerTesting
import Testing

@testable import LedgerService

/// The fast read paths (subject reads in place, components from key hashes, the streaming rebuild) give what the
/// copying, string-keyed paths give.
@Suite struct ComponentTests {
    let directory = TemporaryDirectory()

    /// A ledger holding the records of every lifecycle (shared users and subscriptions join their components).
    func ledger(_ lifecycles: [Lifecycle] = Lifecycle.all) throws -> Ledger {
        let ledger = try Ledger.openWriter(at: directory.path, environment: .sandbox)
        for lifecycle in lifecycles {
            _ = try ledger.append(lifecycle.entries.map { ($0.record, nil) })
        }
        return ledger
    }

    /// The components as the string-keyed union-find over every record's subject keys finds them.
    func referenceComponents(_ ledger: Ledger) throws -> Set<[UInt64]> {
        var parent: [String: String] = [:]
        func root(_ key: String) -> String {
            var node = key
            while let next = parent[node], next != node { node = next }
            return node
        }
        var first: [(UInt64, String)] = []
        try ledger.log.forEach(from: 1) { record in
            for key in record.subjectKeys where parent[key] == nil { parent[key] = key }
            for key in record.subjectKeys.dropFirst() {
                let (a, b) = (root(record.subjectKeys[0]), root(key))
                if a != b { parent[max(a, b)] = min(a, b) }
            }
            if let key = record.subjectKeys.first { first.append((record.seq, key)) }
        }
        var groups: [String: [UInt64]] = [:]
        for (seq, key) in first { groups[root(key), default: []].append(seq) }
        return Set(groups.values)
    }

    /// The entries of a subject as the copying read finds them: every record under its key, then under the
    /// keys of the subscriptions they name.
    func referenceEntries(_ ledger: Ledger, _ query: SubjectQuery) throws -> [LedgerEntry] {
        var seen = Set<UInt64>()
        var entries: [LedgerEntry] = []
        var pending = [SubjectKeys.key(for: query)]
        var visited = Set<String>()
        while let key = pending.popLast() {
            guard visited.insert(key).inserted else { continue }
            for record in try ledger.log.records(forSubjectKey: key, skipping: seen)
            where seen.insert(record.seq).inserted {
                let entry = try Ledger.entry(from: record)
                entries.append(entry)
                if let otid = entry.record.subject.originalTransactionId {
                    pending.append(SubjectKeys.subscription(otid))
                }
                if let otid = entry.record.transaction?.originalTransactionId {
                    pending.append(SubjectKeys.subscription(otid))
                }
            }
        }
        return entries
    }

    @Test func componentsAreThoseOfTheSubjectKeys() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let components = try ledger.components()
        #expect(Set(components) == (try referenceComponents(ledger)))
        #expect(components.map { $0[0] } == components.map { $0[0] }.sorted())
        #expect(components.allSatisfy { $0 == $0.sorted() })
    }

    @Test(arguments: Lifecycle.all)
    func entriesOfASubjectAreTheCopyingReadsEntries(lifecycle: Lifecycle) throws {
        let ledger = try ledger([lifecycle])
        defer { ledger.close() }
        let entries = try ledger.entries(for: lifecycle.query)
        let reference = try referenceEntries(ledger, lifecycle.query)
        #expect(Set(entries) == Set(reference))
        #expect(entries.count == reference.count)
        for check in lifecycle.checks {
            let query = check.query ?? lifecycle.query
            let state = try ledger.state(of: query, at: check.at, knownAt: check.knownAt)
            let expected = ledger.fold.state(
                of: query, entries: try referenceEntries(ledger, query), at: check.at, knownAt: check.knownAt)
            #expect(state == expected, "\(lifecycle) at \(check.at)")
        }
    }

    @Test func streamingGivesEveryComponentOnceWithItsEntries() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        var ordered: [[LedgerEntry]] = []
        try ledger.forEachComponent { ordered.append($0) }
        var streamed: [[LedgerEntry]] = []
        var progress = 0
        try ledger.forEachComponentStreaming(progress: { progress = $0 }) { streamed.append($0) }
        #expect(streamed.count == ordered.count)
        #expect(Set(streamed) == Set(ordered))
        #expect(progress == ordered.reduce(0) { $0 + $1.count })
        #expect(ordered.map { $0.map(\.seq) } == (try ledger.components()))
    }

    @Test(arguments: [1, 2, 3])
    func foldingOnThreadsFoldsEveryComponentOnce(threads: Int) throws {
        let ledger = try ledger()
        defer { ledger.close() }
        var ordered: [[LedgerEntry]] = []
        try ledger.forEachComponent { ordered.append($0) }
        #expect(ordered.count >= 3)
        let parts = try ledger.foldComponents(threads: threads, into: [[LedgerEntry]]()) { part, entries in
            part.append(entries)
        }
        #expect(parts.count == threads)
        let folded = parts.flatMap { $0 }
        #expect(folded.count == ordered.count)
        #expect(Set(folded) == Set(ordered))
    }

    @Test func rebuildAndTableAgreeWithTheOrderedComponents() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let at = Fixture.e2
        let table = try ledger.projectionTable(at: at)
        var rows: [ProjectionTable.Entry] = []
        try ledger.forEachComponent {
            rows.append(contentsOf: ProjectionTable.entries(of: $0, fold: ledger.fold, at: at))
        }
        let reference = ProjectionTable(at: at, coveredSeq: ledger.head.seq, entries: rows)
        #expect(table.count == reference.count)
        for user in rows.map(\.userId) {
            #expect(table.entry(user: user) == reference.entry(user: user), "user \(user)")
        }
        let summary = try ledger.rebuildProjections(at: at)
        #expect(summary.users == Set(rows.map(\.userId)).count)
        #expect(summary.devicesUnderContract >= rows.reduce(0) { $0 + $1.deviceLimit })
    }
}
