import LedgerCore
import LedgerCrypto
import LedgerJSON
import LedgerService

/// `ledger audit SUBJECT`: re-verify every evidence payload of the subject and its chain links.
enum AuditCommand: LedgerCommand {
    static let spec = CommandSpec(
        name: "audit", summary: "Re-verify every evidence payload of a subject and its chain links.",
        usage: ["audit [--data DIR | --store URL] SUBJECT [VERIFY FLAGS] [--json]"],
        options: [SharedOptions.data, SharedOptions.store] + SharedOptions.subject + SharedOptions.verify + [
            SharedOptions.json
        ])

    static func run(_ context: CommandContext) throws(CLIError) -> Int32 {
        let query = try context.subject()
        let ledger = try Commands.openReader(context)
        defer { ledger.close() }
        let bound = BoundIdentity(environment: ledger.environment, app: ledger.appIdentity, place: ledger.place)
        let verifier = try VerifySettings.verifier(context, bound: bound)
        let findings: [AuditFinding]
        do {
            findings = try ledger.audit(query, verifier: verifier)
        } catch {
            throw Commands.failure(error)
        }
        let failed = findings.filter { !$0.passed }
        let counts = (
            verified: findings.filter { $0.evidence == .verified }.count,
            unsigned: findings.filter { $0.evidence == .unsigned }.count,
            operators: findings.filter { $0.evidence == .operatorRecord }.count
        )
        if context.json {
            context.printJSON(
                .object([
                    "subject": .string("\(query)"), "records": .int(findings.count), "verified": .int(counts.verified),
                    "unsigned": .int(counts.unsigned), "operatorRecords": .int(counts.operators),
                    "failures": .int(failed.count), "head": .string(Hex.encode(ledger.head.hash)),
                    "findings": .array(findings.map(json)),
                ]))
        } else {
            Terminal.line("audit of \(query): \(findings.count) records, head seq \(ledger.head.seq)")
            for finding in findings {
                Terminal.line(
                    "  seq \(finding.seq)  \(finding.kind)  chain \(finding.chainLinkHolds ? "ok" : "BROKEN")  \(describe(finding.evidence))"
                )
            }
            Terminal.line(
                "\(counts.verified) verified against Apple's signature, \(counts.unsigned) unsigned legacy, "
                    + "\(counts.operators) operator records, \(failed.count) failures")
        }
        if !failed.isEmpty {
            Terminal.err("error: \(failed.count) record(s) failed the audit, first at seq \(failed[0].seq)\n")
            return 1
        }
        return 0
    }

    static func json(_ finding: AuditFinding) -> JSONValue {
        var object: JSONObject = [
            "seq": .integer(Int64(clamping: finding.seq)), "kind": .string(finding.kind),
            "chainLink": .bool(finding.chainLinkHolds),
        ]
        switch finding.evidence {
        case .verified: object["evidence"] = "verified"
        case .unsigned: object["evidence"] = "unsigned"
        case .operatorRecord: object["evidence"] = "operator"
        case .failed(let reason):
            object["evidence"] = "failed"
            object["reason"] = .string(reason)
        }
        return .object(object)
    }

    static func describe(_ evidence: AuditFinding.Evidence) -> String {
        switch evidence {
        case .verified: return "evidence verified"
        case .unsigned: return "unsigned legacy receipt"
        case .operatorRecord: return "operator record"
        case .failed(let reason): return "FAILED: \(reason)"
        }
    }
}
