/// A progress bar on standard error, drawn only when it is a terminal.
final class Progress {
    /// What the counts are counts of.
    enum Unit {
        case items
        /// Shown in MB.
        case bytes
    }

    let label: String
    let total: Int
    let unit: Unit
    let enabled: Bool
    private var lastPercent = -1

    init(label: String, total: Int, unit: Unit = .items) {
        self.label = label
        self.total = total
        self.unit = unit
        self.enabled = Terminal.stderrIsTerminal && total > 0
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let percent = total == 0 ? 100 : min(100, done * 100 / total)
        guard percent != lastPercent else { return }
        lastPercent = percent
        let width = 30
        let filled = percent * width / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        Terminal.err("\r\(label) [\(bar)] \(percent)% (\(shown(done))/\(shown(total)))")
    }

    private func shown(_ count: Int) -> String {
        switch unit {
        case .items: return String(count)
        case .bytes: return "\(count / 1_000_000) MB"
        }
    }

    func finish() {
        guard enabled, lastPercent >= 0 else { return }
        Terminal.err("\n")
        lastPercent = -1
    }
}
