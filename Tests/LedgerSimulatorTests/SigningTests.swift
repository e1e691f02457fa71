import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCore
import LedgerCrypto
import LedgerJSON
import Testing

@testable import LedgerSimulator

@Test func deterministicSignaturesMatchRFC6979() throws {
    // RFC 6979 appendix A.2.5: P-256, SHA-256, message "sample".
    let key = try DeterministicSigningKey(
        curve: .p256, scalar: Hex.decode("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")!)
    let signature = try key.signature(for: Array("sample".utf8), digest: .sha256)
    #expect(
        Hex.encode(signature.rawRepresentation)
            == "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
            + "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8")
}

@Test(arguments: [(ECCurve.p256, DigestAlgorithm.sha256), (.p256, .sha384), (.p384, .sha384), (.p384, .sha256)])
func deterministicSignaturesVerifyAndRepeat(curve: ECCurve, digest: DigestAlgorithm) throws {
    let key = try DeterministicSigningKey(curve: curve, seed: Array("test \(curve) \(digest)".utf8))
    for message in ["", "a", "the same seed gives the same bytes"] {
        let data = Array(message.utf8)
        let signature = try key.signature(for: data, digest: digest)
        #expect(key.privateKey.publicKey.isValidSignature(signature, for: data, digest: digest))
        #expect(try key.signature(for: data, digest: digest) == signature)
    }
}

@Test func theSimulationPKIIsDerivedFromTheSeed() throws {
    let first = try SimulationSigner(seed: 42)
    let second = try SimulationSigner(seed: 42)
    let other = try SimulationSigner(seed: 43)
    #expect(first.rootCertificateDER == second.rootCertificateDER)
    #expect(first.pki.pki.leaf == second.pki.pki.leaf)
    #expect(first.rootCertificateDER != other.rootCertificateDER)
    let payload: JSONValue = .object(["notificationType": "TEST", "signedDate": 1])
    #expect(try first.sign(payload) == second.sign(payload))
    #expect(first.pki.pki.intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
    #expect(first.pki.pki.leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
    #expect(try first.pki.pki.intermediate.isSigned(by: first.pki.pki.root.publicKey))
    #expect(try first.pki.pki.leaf.isSigned(by: first.pki.pki.intermediate.publicKey))
}

@Test(arguments: [LedgerEnvironment.production, .sandbox])
func signedNotificationsVerifyAsApplesLibrariesDo(environment: LedgerEnvironment) throws {
    let config = Fixtures.small(seed: 8, environment: environment)
    let simulation = try Simulator(config: config).run()
    let signer = try SimulationSigner(seed: config.seed)
    let verifier = try signer.verifier(for: config)
    let bodies = try simulation.signedBodies(with: signer)
    #expect(bodies.count == simulation.notifications.count)
    for (notification, body) in zip(simulation.notifications, bodies) {
        let verified = try verifier.verifyNotification(body: body)
        #expect(verified.expandedPayload == notification.decodedPayload)
    }
}

@Test func anotherSeedsRootDoesNotVerifyTheNotifications() throws {
    let config = Fixtures.small(seed: 8)
    let simulation = try Simulator(config: config).run()
    let body = try simulation.notifications[2].body(signedWith: SimulationSigner(seed: config.seed))
    let verifier = try SignedDataVerifier(
        configuration: VerifierConfiguration(
            rootCertificates: [SimulationSigner(seed: 9).rootCertificateDER], bundleId: config.bundleId,
            appAppleId: config.appAppleId, environment: .production))
    #expect(throws: VerificationError.self) { try verifier.verifyNotification(body: body) }
}
