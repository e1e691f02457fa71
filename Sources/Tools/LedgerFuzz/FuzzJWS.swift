// The checks of the App Store boundary's fuzz target: JSON parsing, webhook bodies, JWS verification, the payload
// models, the mapping to ledger records and their binary form.
//
// `Scripts/fuzz SECONDS` compiles LedgerCore, LedgerJSON, LedgerCrypto and LedgerAppStore with
// `-sanitize=fuzzer,address` as static libraries (no SwiftPM, so the sanitizers instrument them) and this file and
// `FuzzEntry.swift` with `-D FUZZING`. `swift run LedgerFuzz jws [--explain] FILE...` runs each file through the same
// checks, so a crash found by the fuzzer becomes a reproducible command.
//
// An input starting with `S` is a notification payload to sign: the rest is JSON whose `data` may hold
// `signedTransactionInfo` / `signedRenewalInfo` as objects; they and the envelope are signed with a PKI made
// at start-up, so the fuzzer reaches everything behind the signature check. Any other input is used raw: as
// JSON, as a webhook body and as a compact JWS.

import LedgerAppStore
import LedgerAppStoreTestKit
import LedgerCore
import LedgerCrypto
import LedgerJSON

/// What the target needs for the whole run: a signing PKI and a verifier that trusts it.
struct FuzzContext: Sendable {
    let signer: JWSSigner
    let verifier: SignedDataVerifier

    static let shared: FuzzContext = {
        let pki = try! ApplePKI()
        let configuration = try! VerifierConfiguration(
            rootCertificates: [pki.root.derRepresentation], bundleId: "com.visla.gps", appAppleId: 1_234_567_890,
            environment: .sandbox)
        // A fixed "now" keeps runs reproducible (it only matters for payloads without a signedDate).
        let verifier = try! SignedDataVerifier(configuration: configuration, now: { 1_772_323_200_000 })
        return FuzzContext(signer: try! pki.signer(), verifier: verifier)
    }()
}

/// Called with the name of each deep stage an input reaches (the replayer's `--explain` prints them).
nonisolated(unsafe) var reached: (String) -> Void = { _ in }

/// Runs one input through every decoder and checks what must hold for any input:
/// - nothing traps (every failure is a typed error);
/// - JSON that parses, written out and parsed again, is the same value, and writes out the same text;
/// - a record mapped from a verified notification survives its binary encoding unchanged.
func checkJWSInput(_ bytes: [UInt8]) {
    let context = FuzzContext.shared
    if bytes.first == UInt8(ascii: "S") {
        guard let body = signedBody(Array(bytes.dropFirst()), signer: context.signer) else { return }
        checkBody(body, verifier: context.verifier)
        return
    }
    checkJSONRoundTrip(bytes)
    checkBody(bytes, verifier: context.verifier)
    let text = String(decoding: bytes, as: UTF8.self)
    if let jws = try? CompactJWS(text) {
        _ = try? jws.decodedHeader()
        checkModels(.object(jws.payload))
    }
    _ = try? context.verifier.verifiedPayload(of: text)
    _ = try? context.verifier.verifyTransaction(text)
    _ = try? context.verifier.verifyRenewalInfo(text)
}

/// JSON round trip: parse → write → parse gives the same value and the same text.
func checkJSONRoundTrip(_ bytes: [UInt8]) {
    guard let value = try? JSONValue.parse(bytes, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 32)) else {
        return
    }
    let text = value.serializedBytes()
    guard let again = try? JSONValue.parse(text, limits: JSONLimits(maxBytes: 4 << 20, maxDepth: 32)) else {
        fatalError("the writer's output does not parse: \(String(decoding: text, as: UTF8.self))")
    }
    guard equivalent(again, value) else { fatalError("JSON round trip changed the value: \(value) became \(again)") }
    guard again.serializedBytes() == text else { fatalError("JSON writing is not stable for \(value)") }
    _ = value.serialized(.pretty)
    checkModels(value)
}

/// Equal as JSON: the same structure, and numbers of the same value (a whole double such as `1.7e10` is written
/// as `17000000000` and reads back as an integer; JSON does not tell them apart).
func equivalent(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.integer(let integer), .double(let double)), (.double(let double), .integer(let integer)):
        return Double(integer) == double
    case (.array(let left), .array(let right)):
        return left.count == right.count && zip(left, right).allSatisfy { equivalent($0, $1) }
    case (.object(let left), .object(let right)):
        return left.count == right.count
            && zip(left, right).allSatisfy { $0.key == $1.key && equivalent($0.value, $1.value) }
    default:
        return lhs == rhs
    }
}

/// The payload models on any JSON, and the mapping when they decode.
func checkModels(_ value: JSONValue) {
    _ = try? TransactionPayload(json: value)
    _ = try? RenewalInfoPayload(json: value)
    if let notification = try? NotificationPayload(json: value) {
        checkRecord(try? LedgerRecord(notification: notification, transaction: nil, renewal: nil, evidence: nil))
    }
}

/// A webhook body verified as the ingest pipeline does, then decoded and mapped.
func checkBody(_ body: [UInt8], verifier: SignedDataVerifier) {
    _ = try? SignedDataVerifier.signedPayload(fromBody: body)
    let verified: VerifiedNotification
    do {
        verified = try verifier.verifyNotification(body: body)
    } catch {
        reached("verification refused it: \(error)")
        return
    }
    reached("verified notification")
    guard let notification = try? NotificationPayload(json: verified.payload) else { return }
    reached("decoded notification payload")
    let transaction = verified.transaction.flatMap { try? TransactionPayload(json: $0) }
    let renewal = verified.renewalInfo.flatMap { try? RenewalInfoPayload(json: $0) }
    if verified.transaction != nil && transaction == nil { return }
    if verified.renewalInfo != nil && renewal == nil { return }
    let evidence = SHA256.hash(Array(verified.signedPayload.utf8))
    checkRecord(
        try? LedgerRecord(notification: notification, transaction: transaction, renewal: renewal, evidence: evidence))
}

/// A mapped record must come back from its binary form unchanged.
func checkRecord(_ record: LedgerRecord?) {
    guard let record else { return }
    let bytes = record.encoded()
    let decoded: LedgerRecord
    do {
        decoded = try LedgerRecord(decoding: bytes)
    } catch {
        fatalError("a mapped record does not decode from its own encoding: \(error)")
    }
    guard decoded == record else { fatalError("the binary round trip changed the record: \(record) → \(decoded)") }
    reached("record \(record.idempotencyKey) survives its binary form")
}

/// `{"signedPayload":"…"}` for a JSON notification payload, its `data.signedTransactionInfo` and
/// `data.signedRenewalInfo` signed first when they are objects.
func signedBody(_ json: [UInt8], signer: JWSSigner) -> [UInt8]? {
    guard case .object(var payload)? = try? JSONValue.parse(json, limits: JSONLimits(maxBytes: 1 << 20, maxDepth: 32))
    else { return nil }
    if case .object(var data)? = payload["data"] {
        for key in ["signedTransactionInfo", "signedRenewalInfo"] {
            if let inner = data[key], inner.object != nil, let signed = try? signer.sign(inner) {
                data[key] = .string(signed)
            }
        }
        payload["data"] = .object(data)
    }
    guard let signed = try? signer.sign(.object(payload)) else { return nil }
    return JSONValue.object(["signedPayload": .string(signed)]).serializedBytes()
}
