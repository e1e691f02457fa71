extension ReportTable {
    /// A self-contained SVG bar chart: one bar per distinct first-column label, its height the sum of the
    /// first numeric column (sales for `sales`, active subscriptions, MRR, churned, events per day).
    public func svg(width: Int = 900, height: Int = 300) -> String {
        var labels: [String] = []
        var totals: [String: Double] = [:]
        let valueColumn: Int? = {
            switch kind {
            case "sales": return columns.firstIndex(of: "sales")
            case "churn": return columns.firstIndex(of: "churned")
            case "events": return nil
            default: return rows.first?.indices.dropFirst().first { rows[0][$0].number != nil }
            }
        }()
        for row in rows {
            guard let first = row.first else { continue }
            var label = first.display
            if kind == "events" { label = String(label.prefix(10)) }
            if totals[label] == nil { labels.append(label) }
            let value = valueColumn.flatMap { row[$0].number } ?? 1
            totals[label, default: 0] += value
        }
        let title = valueColumn.map { "\(kind): \(columns[$0])" } ?? "\(kind): count"
        let maximum = max(totals.values.max() ?? 1, 1e-9)
        let left = 60.0
        let bottom = Double(height) - 40
        let plotWidth = Double(width) - left - 10
        let plotHeight = bottom - 30
        let barWidth = labels.isEmpty ? 0 : plotWidth / Double(labels.count)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" role=\"img\">\n"
        svg += "<text x=\"\(Int(left))\" y=\"18\" font-size=\"13\" font-family=\"sans-serif\">\(title)</text>\n"
        svg +=
            "<text x=\"\(Int(left) - 6)\" y=\"\(Int(bottom - plotHeight) + 4)\" font-size=\"11\" text-anchor=\"end\" "
        svg += "font-family=\"sans-serif\">\(Self.short(maximum))</text>\n"
        svg +=
            "<line x1=\"\(Int(left))\" x2=\"\(Int(left + plotWidth))\" y1=\"\(Int(bottom))\" y2=\"\(Int(bottom))\" stroke=\"#888\"/>\n"
        for (i, label) in labels.enumerated() {
            let value = totals[label] ?? 0
            let barHeight = value / maximum * plotHeight
            let x = left + Double(i) * barWidth
            svg += "<rect x=\"\(Self.short(x + barWidth * 0.1))\" y=\"\(Self.short(bottom - barHeight))\" "
            svg +=
                "width=\"\(Self.short(max(1, barWidth * 0.8)))\" height=\"\(Self.short(barHeight))\" fill=\"#0969da\">"
            svg += "<title>\(label): \(Self.short(value))</title></rect>\n"
            if labels.count <= 16 || i % max(1, labels.count / 8) == 0 {
                svg += "<text x=\"\(Self.short(x + barWidth / 2))\" y=\"\(Int(bottom) + 16)\" font-size=\"10\" "
                svg += "text-anchor=\"middle\" font-family=\"sans-serif\">\(label)</text>\n"
            }
        }
        return svg + "</svg>\n"
    }

    static func short(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}
