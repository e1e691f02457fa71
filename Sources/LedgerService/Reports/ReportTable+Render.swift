extension ReportTable {
    /// The report's charts as one self-contained SVG document, one chart under the other.
    public func svg(width: Int = 1000, chartHeight: Int = 440) -> String {
        let charts =
            self.charts.isEmpty
            ? [ReportChart(title: title, unit: "", xTitle: "", labels: [], series: [])] : self.charts
        let height = chartHeight * charts.count
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" "
        out += "viewBox=\"0 0 \(width) \(height)\" role=\"img\">\n"
        out += "<title>\(Markup.escape(title))</title>\n"
        for (index, chart) in charts.enumerated() {
            out += "<g transform=\"translate(0,\(index * chartHeight))\">\n"
            out += chart.svgBody(width: width, height: chartHeight)
            out += "</g>\n"
        }
        return out + "</svg>\n"
    }

    /// One self-contained HTML page: the title, the definitions, every chart and the table.
    public func html() -> String {
        let e = Markup.escape
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        out += "<title>\(e(title))</title>\n<style>\n"
        out += "body{font-family:sans-serif;margin:24px;color:#222}h1{font-size:20px}"
        out += "table{border-collapse:collapse;font-size:12px;margin-top:16px}"
        out +=
            "th,td{border:1px solid #ccc;padding:3px 8px;white-space:nowrap}th{background:#f3f3f3;position:sticky;top:0}"
        out += "td.n{text-align:right;font-variant-numeric:tabular-nums}.notes{font-size:13px;max-width:1000px}"
        out += "\n</style>\n</head>\n<body>\n<h1>\(e(title))</h1>\n"
        if !notes.isEmpty {
            out += "<ul class=\"notes\">\n" + notes.map { "<li>\(e($0))</li>\n" }.joined() + "</ul>\n"
        }
        for chart in charts {
            out += "<figure>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1000\" height=\"440\" "
            out += "viewBox=\"0 0 1000 440\" role=\"img\" aria-label=\"\(e(chart.title))\">\n"
            out += chart.svgBody(width: 1000, height: 440) + "</svg>\n</figure>\n"
        }
        out += "<table>\n<thead><tr>" + columns.map { "<th>\(e($0))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
        for row in rows {
            out += "<tr>"
            for cell in row {
                switch cell {
                case .text(let text): out += "<td>\(e(text))</td>"
                default: out += "<td class=\"n\">\(e(cell.display))</td>"
                }
            }
            out += "</tr>\n"
        }
        return out + "</tbody>\n</table>\n</body>\n</html>\n"
    }
}
