import LedgerCore

/// The device limit of a subject as a step function of valid time, sampled where it can change.
public enum DeviceLimitSteps {
    /// One step: the limit from `at` on (until the next step).
    public struct Step: Hashable, Sendable {
        /// Where the step starts.
        public var at: Instant
        /// The device limit from then on.
        public var deviceLimit: Int
    }

    /// Every instant at which the limit may change: purchases, expiries, revocations, grace ends,
    /// corrections. The fold is asked at each.
    public static func compute(fold: EntitlementFold, query: SubjectQuery, entries: [LedgerEntry], knownAt: Instant?)
        -> [Step]
    {
        var instants = Set<Instant>()
        for entry in entries where knownAt.map({ entry.recordedAt <= $0 }) ?? true {
            let record = entry.record
            if let transaction = record.transaction {
                instants.insert(transaction.purchaseDate)
                if let end = transaction.expiresDate { instants.insert(end) }
                if let revoked = transaction.revocationDate { instants.insert(revoked) }
            }
            if let grace = record.renewal?.gracePeriodExpiresDate { instants.insert(grace) }
            if let correction = record.correction {
                switch correction.action {
                case .grant(_, let from, let until):
                    instants.insert(from)
                    instants.insert(until)
                case .revoke(let from): instants.insert(from)
                }
            }
        }
        var steps: [Step] = []
        let sorted = instants.sorted()
        let states = fold.states(of: query, entries: entries, at: sorted, knownAt: knownAt)
        for (instant, state) in zip(sorted, states) where steps.last?.deviceLimit != state.deviceLimit {
            steps.append(Step(at: instant, deviceLimit: state.deviceLimit))
        }
        return steps
    }

    /// An inline SVG step chart of the steps.
    public static func svg(_ steps: [Step], width: Int = 900, height: Int = 220) -> String {
        guard let first = steps.first, let last = steps.last else {
            return "<p>No entitlement in the records.</p>"
        }
        // In doubles: a record may name any instant a 64-bit count of milliseconds holds.
        let start = first.at.milliseconds
        let day: Int64 = 86_400_000
        let end = max(last.at.milliseconds, start > Int64.max - day ? Int64.max : start + day)
        let span = (Double(end) - Double(start)) * 1.05
        let maxLimit = max(1, steps.map(\.deviceLimit).max() ?? 1)
        let left = 48.0
        let bottom = Double(height) - 28
        let plotWidth = Double(width) - left - 12
        let plotHeight = bottom - 12
        func x(_ ms: Int64) -> Double { left + (Double(ms) - Double(start)) / span * plotWidth }
        func y(_ limit: Int) -> Double { bottom - Double(limit) / Double(maxLimit) * plotHeight }
        var path = "M \(format(x(start))) \(format(y(0)))"
        for step in steps {
            path += " H \(format(x(step.at.milliseconds))) V \(format(y(step.deviceLimit)))"
        }
        path += " H \(format(left + plotWidth))"
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" role=\"img\" "
        svg += "aria-label=\"device limit over time\">\n"
        // Every limit up to 10, else about five grid lines (a catalog may allow any number of devices).
        for limit in stride(from: 0, through: maxLimit, by: maxLimit <= 10 ? 1 : max(1, maxLimit / 5)) {
            svg += "<line x1=\"\(format(left))\" x2=\"\(format(left + plotWidth))\" y1=\"\(format(y(limit)))\" "
            svg += "y2=\"\(format(y(limit)))\" stroke=\"#eef0f2\"/>"
            svg += "<text x=\"\(format(left - 8))\" y=\"\(format(y(limit) + 4))\" font-size=\"11\" text-anchor=\"end\" "
            svg += "fill=\"#5b6673\">\(limit)</text>\n"
        }
        svg += "<path d=\"\(path)\" fill=\"none\" stroke=\"#0969da\" stroke-width=\"2\"/>\n"
        for step in steps {
            svg += "<circle cx=\"\(format(x(step.at.milliseconds)))\" cy=\"\(format(y(step.deviceLimit)))\" r=\"3\" "
            svg += "fill=\"#0969da\"><title>\(step.at.iso8601): \(step.deviceLimit) devices</title></circle>\n"
        }
        svg +=
            "<text x=\"\(format(left))\" y=\"\(height - 8)\" font-size=\"11\" fill=\"#5b6673\">\(first.at.iso8601)</text>"
        svg += "<text x=\"\(format(left + plotWidth))\" y=\"\(height - 8)\" font-size=\"11\" text-anchor=\"end\" "
        svg += "fill=\"#5b6673\">\(Instant(milliseconds: end).iso8601)</text>\n</svg>"
        return svg
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        guard rounded.isFinite, abs(rounded) < 1e15 else { return "0" }
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
