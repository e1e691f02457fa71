extension ReportChart {
    static let palette = [
        "#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1", "#9c755f", "#e377c2", "#bcbd22",
        "#8cd17d", "#499894", "#17becf", "#bab0ac", "#7f7f7f",
    ]
    /// Refunds and other losses.
    static let lossColor = "#e15759"

    /// The chart as SVG elements in a `width` × `height` box at the origin.
    func svgBody(width: Int, height: Int) -> String {
        let w = Double(width)
        let h = Double(height)
        var out = "<rect width=\"\(width)\" height=\"\(height)\" fill=\"#ffffff\"/>\n"
        // The title, wrapped at words to the width (about 9 px a character at 16 px, bold).
        var lines: [String] = []
        for word in title.split(separator: " ") {
            if let last = lines.last, Double(last.count + word.count + 1) * 9.2 <= w - 90 {
                lines[lines.count - 1] = last + " " + word
            } else {
                lines.append(String(word))
            }
        }
        for (number, line) in lines.enumerated() {
            out += text(
                x: 78, y: 26 + Double(number) * 20, Markup.escape(line), size: 16, extra: " font-weight=\"bold\"")
        }
        // The legend, wrapped to the width.
        var entries = series.enumerated().map { ($0.element.name, color(of: $0.offset), false) }
        if let net { entries.append((net.name, "#222222", true)) }
        var x = 78.0
        var y = 46.0 + Double(max(0, lines.count - 1)) * 20
        for (name, fill, isLine) in entries {
            let itemWidth = Double(name.count) * 7 + 30
            if x + itemWidth > w - 10, x > 78 {
                x = 78
                y += 18
            }
            if isLine {
                out +=
                    "<line x1=\"\(f(x))\" x2=\"\(f(x + 14))\" y1=\"\(f(y - 4))\" y2=\"\(f(y - 4))\" stroke=\"\(fill)\" "
                out += "stroke-width=\"2\"/><circle cx=\"\(f(x + 7))\" cy=\"\(f(y - 4))\" r=\"3\" fill=\"\(fill)\"/>\n"
            } else {
                out += "<rect x=\"\(f(x))\" y=\"\(f(y - 10))\" width=\"12\" height=\"12\" fill=\"\(fill)\"/>\n"
            }
            out += text(x: x + 18, y: y, Markup.escape(name), size: 12)
            x += itemWidth
        }
        let left = 78.0
        let right = w - 24
        let top = y + 22
        let bottom = h - 58
        let (low, high) = extent
        let ticks = Self.ticks(low: low, high: high)
        let minimum = ticks.first ?? 0
        let maximum = max(ticks.last ?? 1, minimum + 1e-9)
        func yOf(_ value: Double) -> Double { bottom - (value - minimum) / (maximum - minimum) * (bottom - top) }
        let step = ticks.count > 1 ? ticks[1] - ticks[0] : 1
        for tick in ticks {
            let ty = yOf(tick)
            let stroke = tick == 0 ? "#333333" : "#dddddd"
            out += "<line x1=\"\(f(left))\" x2=\"\(f(right))\" y1=\"\(f(ty))\" y2=\"\(f(ty))\" stroke=\"\(stroke)\"/>\n"
            out += text(x: left - 6, y: ty + 4, Self.tickLabel(tick, step: step), size: 11, anchor: "end")
        }
        out += "<text transform=\"translate(16,\(f((top + bottom) / 2))) rotate(-90)\" font-size=\"12\" "
        out += "font-family=\"sans-serif\" text-anchor=\"middle\">\(Markup.escape(unit))</text>\n"
        out += "<line x1=\"\(f(left))\" x2=\"\(f(left))\" y1=\"\(f(top))\" y2=\"\(f(bottom))\" stroke=\"#333333\"/>\n"
        // Bars.
        let count = labels.count
        let band = count == 0 ? 0 : (right - left) / Double(count)
        let barWidth = max(1, band * 0.8)
        var netPoints: [(Double, Double)] = []
        for index in 0..<count {
            let bx = left + Double(index) * band + (band - barWidth) / 2
            var up = 0.0
            var down = 0.0
            for (number, item) in series.enumerated() {
                guard item.values.indices.contains(index), item.values[index] != 0 else { continue }
                let value = item.values[index]
                let from = value > 0 ? up : down
                let to = from + value
                if value > 0 { up = to } else { down = to }
                let y1 = min(yOf(from), yOf(to))
                let y2 = max(yOf(from), yOf(to))
                out +=
                    "<rect x=\"\(f(bx))\" y=\"\(f(y1))\" width=\"\(f(barWidth))\" height=\"\(f(max(0.5, y2 - y1)))\" "
                out +=
                    "fill=\"\(color(of: number))\"><title>\(Markup.escape(labels[index])) · \(Markup.escape(item.name)): "
                out += "\(Self.valueLabel(value)) \(Markup.escape(unit))</title></rect>\n"
            }
            if let net, net.values.indices.contains(index) {
                netPoints.append((bx + barWidth / 2, yOf(net.values[index])))
            }
        }
        if !netPoints.isEmpty {
            let points = netPoints.map { "\(f($0.0)),\(f($0.1))" }.joined(separator: " ")
            out += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"#222222\" "
            // Over many thin bars the line is drawn faint, so that the stacks under it stay readable.
            out += "stroke-width=\"\(count > 60 ? "0.8" : "1.5")\"\(count > 120 ? " stroke-opacity=\"0.45\"" : "")/>\n"
            if netPoints.count <= 120 {
                for (px, py) in netPoints {
                    out += "<circle cx=\"\(f(px))\" cy=\"\(f(py))\" r=\"2.5\" fill=\"#222222\"/>\n"
                }
            }
        }
        // X labels, thinned from the last one backwards so that it always shows, kept inside the chart: one at
        // least every `every` buckets after the one kept before it, at the first bucket where it does not run
        // into that one (the last label, pushed inside the chart, may take more room than its share).
        let labelWidth = Double(labels.map(\.count).max() ?? 1) * 6.6 + 10
        let fits = max(1, Int((right - left) / labelWidth))
        let every = max(1, (count + fits - 1) / fits)
        var nextLeft = Double.infinity
        var kept = count - 1 + every
        for index in stride(from: count - 1, through: 0, by: -1) where kept - index >= every {
            let tick = left + (Double(index) + 0.5) * band
            let half = Double(labels[index].count) * 3.3
            let cx = min(max(tick, left + half), w - 4 - half)
            guard cx + half + 6 <= nextLeft else { continue }
            nextLeft = cx - half
            kept = index
            out += "<line x1=\"\(f(tick))\" x2=\"\(f(tick))\" y1=\"\(f(bottom))\" y2=\"\(f(bottom + 4))\" "
            out += "stroke=\"#333333\"/>\n"
            out += text(x: cx, y: bottom + 17, Markup.escape(labels[index]), size: 11, anchor: "middle")
        }
        out += text(x: (left + right) / 2, y: h - 18, Markup.escape(xTitle), size: 12, anchor: "middle")
        return out
    }

    /// A value as a tooltip shows it: grouped thousands, up to 3 decimals, none or at least 2 (`70`, `4.90`, `4.165`).
    static func valueLabel(_ value: Double) -> String {
        var text = tickLabel(value, step: 0.001)
        while text.contains("."), text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        if let dot = text.firstIndex(of: "."), text.distance(from: dot, to: text.endIndex) == 2 { text += "0" }
        return text
    }

    func color(of index: Int) -> String {
        series[index].color ?? Self.palette[index % Self.palette.count]
    }

    func text(x: Double, y: Double, _ content: String, size: Int, anchor: String = "start", extra: String = "")
        -> String
    {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" font-size=\"\(size)\" font-family=\"sans-serif\" text-anchor=\"\(anchor)\"\(extra)>"
            + content + "</text>\n"
    }

    func f(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int64(rounded)) : String(rounded)
    }
}
