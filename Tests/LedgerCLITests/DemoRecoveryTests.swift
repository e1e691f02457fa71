import LedgerTesting
import Testing

/// `ledger demo` shows a recovery: what its webhook outage withheld is pulled from its own App Store Server API,
/// exactly once.
@Suite struct DemoRecoveryTests {
    /// The count of `"   the webhook was down from A to B: N notifications withheld from it …"`.
    static func withheld(in line: Substring) -> Int? {
        guard let tail = line.split(separator: ": ").last, let count = tail.split(separator: " ").first else {
            return nil
        }
        return Int(count)
    }

    @Test func theDemoRecoversWhatItsWebhookMissedAndASecondPullAppendsNothing() throws {
        let directory = TemporaryDirectory()
        let result = ledger(["demo", "--data", directory.path + "/demo", "--users", "120", "--months", "3"])
        #expect(result.code == 0, "\(result.out)\(result.err)")
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false)
        let section = try #require(lines.firstIndex { $0.hasPrefix("2b. Recovered what the webhook missed") })
        let outage = try #require(lines.first { $0.contains("notifications withheld from it") })
        let withheld = try #require(Self.withheld(in: outage))
        #expect(withheld > 0, "\(outage)")
        let pull = try #require(lines.first { $0.hasPrefix("   reconcile --from-api over ") })
        #expect(pull.contains("{\"appended\":\(withheld),"), "\(pull)")
        #expect(pull.contains(",\"rejected\":0}"), "\(pull)")
        #expect(lines.contains { $0.hasPrefix("   \(withheld) of \(withheld) withheld notifications appended") })
        let second = try #require(lines.first { $0.hasPrefix("   a second pull over the same window: ") })
        #expect(second.hasPrefix("   a second pull over the same window: {\"appended\":0,"), "\(second)")
        #expect(second.hasSuffix(", nothing appended"))
        // The sections that were there before are still there, after the recovery, and every user matches.
        #expect(lines[section - 1].isEmpty)
        #expect(lines.contains { $0.hasPrefix("3. The ledger at ") })
        #expect(lines.contains { $0.hasPrefix("6. Checked every user against the simulator's truth") })
        #expect(lines.contains { $0.hasPrefix("   120 / 120 users match (100.0%)") }, "\(result.out)")
        // The key was made for the run: nothing of it is printed or left on disk.
        #expect(!(result.out + result.err).contains("PRIVATE KEY"))
        let files = ServeProcess.files(under: directory.path)
        #expect(files.contains { $0.hasSuffix("/simulation/webhook.jsonl") })
        #expect(!files.contains { $0.hasSuffix(".p8") })
    }
}
