import LedgerCore
import LedgerCrypto

/// `ledger history --html`: one self-contained page (no external assets) for an auditor: the timeline
/// with effective and recorded times side by side, the device-limit step chart as inline SVG, each
/// record's evidence status (a voided record marked so), and operator records (corrections, links, voids) shown
/// apart from Apple's facts.
public enum HistoryPage {
    /// Renders the page for a subject's entries (already in effective-time order).
    public static func render(ledger: Ledger, query: SubjectQuery, entries: [LedgerEntry], knownAt: Instant?)
        throws(ServiceError) -> String
    {
        let all = try ledger.entries(for: query)
        let voids = try ledger.voids(about: query, knownAt: knownAt)
        let steps = DeviceLimitSteps.compute(fold: ledger.fold, query: query, entries: all, knownAt: knownAt)
        let title = "Ledger history — \(describe(query))"
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(Markup.escape(title))</title>
            <style>
            body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232b;background:#fbfbfc}
            h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px}
            .meta{color:#5b6673;margin-bottom:16px}
            table{border-collapse:collapse;width:100%;background:#fff}
            th,td{border-bottom:1px solid #e3e6ea;padding:5px 8px;text-align:left;vertical-align:top;font-size:13px}
            th{background:#f1f3f5;font-weight:600} td.mono{font-family:ui-monospace,monospace;font-size:12px}
            .ok{color:#1a7f37} .warn{color:#9a6700} .bad{color:#cf222e}
            .operator{background:#fff8e6}
            svg{background:#fff;border:1px solid #e3e6ea}
            </style></head><body>
            <h1>\(Markup.escape(title))</h1>
            <div class="meta">\(entries.count) records · \(knownAt.map { "as known at \($0.iso8601)" } ?? "all knowledge")
             · log head \(ledger.log.head.seq) · generated from the log alone</div>
            <h2>Device limit over time</h2>
            \(DeviceLimitSteps.svg(steps))
            <h2>Timeline (Apple's facts)</h2>
            <table><tr><th>seq</th><th>effective</th><th>recorded</th><th>kind</th><th>notification</th>
            <th>product</th><th>transaction</th><th>evidence</th></tr>

            """
        func isOperator(_ entry: LedgerEntry) -> Bool {
            entry.record.correction != nil || entry.record.link != nil || entry.record.void != nil
        }
        for entry in entries where !isOperator(entry) {
            html += row(entry, ledger: ledger, voidedBy: voids[entry.seq])
        }
        html += "</table>\n<h2>Operator corrections, links and voids</h2>\n"
        let operatorEntries = entries.filter(isOperator)
        if operatorEntries.isEmpty {
            html += "<p>None.</p>\n"
        } else {
            html +=
                "<table><tr><th>seq</th><th>effective</th><th>recorded</th><th>what</th><th>by</th><th>why</th></tr>\n"
            for entry in operatorEntries {
                let record = entry.record
                var what: String
                if let void = record.void {
                    what = "void record \(void.seq): its facts count in no answer from \(entry.recordedAt.iso8601) on"
                } else if let correction = record.correction {
                    switch correction.action {
                    case .grant(let product, let from, let until):
                        what = "grant \(product) from \(from.iso8601) until \(until.iso8601)"
                    case .revoke(let from): what = "revoke from \(from.iso8601)"
                    }
                } else {
                    what =
                        "link subscription \(record.subject.originalTransactionId ?? "?") to \(record.subject.userId.map { "user \($0)" } ?? record.subject.appAccountToken ?? "?")"
                }
                if let owner = record.link?.previousOwner {
                    what +=
                        ", taking it from \(owner.userId.map { "user \($0)" } ?? owner.appAccountToken ?? "nobody")"
                }
                if let void = voids[entry.seq] { what += " (voided by record \(void))" }
                let by =
                    record.correction?.operatorName ?? record.link?.operatorName ?? record.void?.operatorName ?? ""
                let why = record.correction?.reason ?? record.link?.reason ?? record.void?.reason ?? ""
                html +=
                    "<tr class=\"operator\"><td>\(entry.seq)</td><td>\(entry.effectiveAt.iso8601)</td><td>\(entry.recordedAt.iso8601)</td>"
                html +=
                    "<td>\(Markup.escape(what))</td><td>\(Markup.escape(by))</td><td>\(Markup.escape(why))</td></tr>\n"
            }
            html += "</table>\n"
        }
        html += "</body></html>\n"
        return html
    }

    static func row(_ entry: LedgerEntry, ledger: Ledger, voidedBy void: UInt64? = nil) -> String {
        let record = entry.record
        let notification = [record.notification?.type, record.notification?.subtype].compactMap { $0 }.joined(
            separator: " / ")
        let evidence: String
        if let sha = record.evidence {
            let present = (try? ledger.log.evidence(sha)) != nil
            evidence =
                present
                ? "<span class=\"ok\">signed original kept</span> <span class=\"mono\">\(Hex.encode(sha.prefix(6)))…</span>"
                : "<span class=\"bad\">evidence missing</span>"
        } else if record.source == .legacyReceipt {
            evidence = "<span class=\"warn\">unsigned legacy receipt</span>"
        } else {
            evidence = "<span class=\"warn\">none</span>"
        }
        let marked = void.map { " <span class=\"bad\">voided by record \($0)</span>" } ?? ""
        var cells = "<tr><td>\(entry.seq)</td><td>\(entry.effectiveAt.iso8601)</td><td>\(entry.recordedAt.iso8601)</td>"
        cells += "<td>\(Markup.escape(entry.kind))</td><td>\(Markup.escape(notification))</td>"
        cells += "<td>\(Markup.escape(record.transaction?.productId ?? record.renewal?.autoRenewProductId ?? ""))</td>"
        cells +=
            "<td class=\"mono\">\(Markup.escape(record.transaction?.transactionId ?? ""))</td><td>\(evidence)\(marked)</td></tr>\n"
        return cells
    }

    static func describe(_ query: SubjectQuery) -> String {
        switch query {
        case .user(let id): return "user \(id)"
        case .account(let token): return "account \(token)"
        case .originalTransaction(let otid): return "subscription \(otid)"
        }
    }
}
