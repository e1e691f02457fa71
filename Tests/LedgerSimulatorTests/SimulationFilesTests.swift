import LedgerCore
import LedgerJSON
import LedgerTesting
import Testing

@testable import LedgerSimulator

@Test func writesTheThreeFiles() throws {
    let directory = TemporaryDirectory()
    let config = Fixtures.small(seed: 21)
    let simulation = try Simulator(config: config).run()
    let signer = try SimulationSigner(seed: config.seed)
    let out = directory.path + "/out"
    let report = try SimulationFiles.write(simulation, signer: signer, to: out)

    let lines = try #require(TemporaryDirectory.lines(directory.read("out/notifications.jsonl")))
    #expect(lines.count == simulation.deliveries.count)
    // Apple's repeated deliveries are the same body, byte for byte.
    #expect(Set(lines).count == simulation.notifications.count)
    #expect(report.deliveries == lines.count && report.notifications == simulation.notifications.count)
    for line in lines {
        let body = try JSONValue.parse(line)
        #expect(body.object?.keys == ["signedPayload"])
        #expect(body["signedPayload"]?.string?.split(separator: ".").count == 3)
    }
    #expect(directory.read("out/trust-root.der") == signer.rootCertificateDER)
    #expect(try simulation.deliveredBodies(signedWith: signer) == lines)
    let truth = try Truth(json: JSONValue.parse(try #require(directory.read("out/truth.json"))))
    #expect(truth == simulation.truth)
}

@Test(arguments: [1, 7, 100_000])
func theFileInPiecesIsTheWholeFileWhateverThePieceSize(deliveriesPerPiece: Int) throws {
    let config = SimulationConfig(users: 150, months: 12, seed: 23)
    let simulation = try Simulator(config: config).run()
    #expect(simulation.deliveries.count > Set(simulation.deliveries.map(\.notification)).count, "retries")
    let signer = try SimulationSigner(seed: config.seed)
    var pieces: [[UInt8]] = []
    try simulation.forEachJSONLines(signedWith: signer, deliveriesPerPiece: deliveriesPerPiece) { pieces.append($0) }
    #expect(pieces.count == (simulation.deliveries.count + deliveriesPerPiece - 1) / deliveriesPerPiece)
    let whole: [UInt8] = try simulation.deliveredBodies(signedWith: signer).flatMap { $0 + [UInt8(0x0A)] }
    #expect(pieces.flatMap { $0 } == whole)
}

@Test func theSameSeedWritesByteIdenticalFiles() throws {
    let directory = TemporaryDirectory()
    let config = Fixtures.small(seed: 22, environment: .sandbox)
    for run in ["a", "b"] {
        let simulation = try Simulator(config: config).run()
        try SimulationFiles.write(
            simulation, signer: SimulationSigner(seed: config.seed), to: directory.path + "/" + run)
    }
    for name in [SimulationFiles.notifications, SimulationFiles.trustRoot, SimulationFiles.truth] {
        let a = directory.read("a/" + name)
        #expect(a != nil && !(a!.isEmpty))
        #expect(a == directory.read("b/" + name), "\(name) differs between two runs of one seed")
    }
}

@Test func anUnwritableOutputIsAnIOErrorThatNamesThePath() throws {
    let directory = TemporaryDirectory()
    let config = SimulationConfig(users: 150, months: 12, seed: 23)
    let simulation = try Simulator(config: config).run()
    let blocker = directory.path + "/file"
    try SimulationFiles.write(simulation, signer: SimulationSigner(seed: 1), to: blocker)
    let target = blocker + "/notifications.jsonl/deeper"
    do {
        try SimulationFiles.write(simulation, signer: SimulationSigner(seed: 1), to: target)
        Issue.record("writing under a file should fail")
    } catch {
        #expect(error.code == .io)
        #expect(error.message.contains(target))
    }
}
