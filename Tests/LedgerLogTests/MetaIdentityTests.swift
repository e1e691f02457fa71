import LedgerStore
import LedgerSystem
import Testing

@testable import LedgerLog

/// The data directory knows whose it is: `meta` records the app identity at the first write, a writer of another
/// app is refused, and a `meta` of an earlier version (no identity) is read and bound at the next write naming one.
@Suite struct MetaIdentityTests {
    static let visla = AppIdentity(bundleId: "com.visla.gps", appAppleId: 1_234_567_890)

    func openWriter(_ dir: String, environment: String = "Production", app: AppIdentity?) throws -> EventLog {
        try EventLog.openWriter(at: dir, environment: environment, app: app, clock: steppingClock())
    }

    func text(_ dir: String) -> String { String(decoding: readBytes(dir + "/meta"), as: UTF8.self) }

    @Test func theIdentityIsWrittenAtTheFirstWriteAndReadBack() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, app: Self.visla)
        #expect(readBytes(temp.data + "/meta").isEmpty, "nothing is written before the first record")
        try appendEach(writer, 1...2)
        writer.close()
        let lines = text(temp.data).split(separator: "\n")
        #expect(lines.count == 6, "\(text(temp.data))")
        #expect(Array(lines[0...1]) == ["ledger-log format 1", "environment Production"])
        #expect(Array(lines[3...4]) == ["bundle-id com.visla.gps", "app-apple-id 1234567890"])
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(reader.appIdentity == Self.visla)
        #expect(reader.environment == "Production")
        // Its first three lines are the meta of earlier versions, checksum and all: an earlier build reads it.
        let earlier = Meta(version: 1, environment: "Production").encoded()
        #expect(readBytes(temp.data + "/meta").starts(with: earlier))
    }

    @Test func aSandboxIdentityHasNoAppAppleIdLine() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, environment: "Sandbox", app: AppIdentity(bundleId: "com.visla.gps"))
        try appendEach(writer, 1...1)
        writer.close()
        #expect(!text(temp.data).contains("app-apple-id"))
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(reader.appIdentity == AppIdentity(bundleId: "com.visla.gps"))
    }

    @Test(arguments: [
        AppIdentity(bundleId: "com.some.thing", appAppleId: 1_234_567_890),
        AppIdentity(bundleId: "com.visla.gps", appAppleId: 42),
    ])
    func aWriterOfAnotherAppIsRefusedNamingBoth(other: AppIdentity) throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, app: Self.visla)
        try appendEach(writer, 1...3)
        let head = writer.head
        writer.close()
        do {
            let second = try openWriter(temp.data, app: other)
            second.close()
            Issue.record("a writer of another app must be refused")
        } catch let error as LogError {
            #expect(error.code == .appMismatch)
            let (bound, wanted) =
                other.bundleId != Self.visla.bundleId ? ("com.visla.gps", "com.some.thing") : ("1234567890", "42")
            #expect(error.message.contains(bound) && error.message.contains(wanted), "\(error.message)")
        }
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(reader.head == head, "nothing appended")
        #expect(reader.appIdentity == Self.visla)
    }

    /// A directory bound before identities were recorded: its `meta` (three lines) still reads, with no identity;
    /// a writer naming none leaves it so; the next write that names one records it, and from then on it holds.
    @Test func anEarlierMetaIsReadAndBoundAtTheNextWriteNamingAnApp() throws {
        let temp = TempDirectory()
        let old = try openWriter(temp.data, app: nil)
        try appendEach(old, 1...2)
        old.close()
        #expect(text(temp.data).split(separator: "\n").count == 3)
        let earlier = try EventLog.openReader(at: temp.data)
        #expect(earlier.appIdentity == nil)
        #expect(earlier.head.seq == 2)
        earlier.close()
        let writer = try openWriter(temp.data, app: Self.visla)
        try appendEach(writer, 3...3)
        writer.close()
        let reader = try EventLog.openReader(at: temp.data)
        #expect(reader.appIdentity == Self.visla)
        #expect(reader.head.seq == 3)
        reader.close()
        #expect(try EventLog.verify(at: temp.data).ok)
        #expect(throws: LogError(.appMismatch, "")) {
            try openWriter(temp.data, app: AppIdentity(bundleId: "com.other.app", appAppleId: 1_234_567_890)).close()
        }
    }

    /// An App Apple ID a sandbox identity lacks is added by a writer that names one; a bundle id never changes.
    @Test func anAppAppleIdIsAddedToAnIdentityThatLacksIt() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, app: AppIdentity(bundleId: "com.visla.gps"))
        try appendEach(writer, 1...1)
        writer.close()
        let second = try openWriter(temp.data, app: Self.visla)
        try appendEach(second, 2...2)
        second.close()
        let reader = try EventLog.openReader(at: temp.data)
        defer { reader.close() }
        #expect(reader.appIdentity == Self.visla)
    }

    @Test func alteredIdentityLinesAreDamage() throws {
        let temp = TempDirectory()
        let writer = try openWriter(temp.data, app: Self.visla)
        try appendEach(writer, 1...1)
        writer.close()
        let altered = text(temp.data).replacing("com.visla.gps", with: "com.visla.gpt")
        writeBytes(temp.data + "/meta", Array(altered.utf8))
        do throws(LogError) {
            try EventLog.openReader(at: temp.data).close()
            Issue.record("an altered identity must be refused")
        } catch {
            #expect(error.code == .damaged)
            #expect(error.message.contains("identity checksum"), "\(error.message)")
        }
    }
}
