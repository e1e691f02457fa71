/// A progress bar on standard error, drawn only when it is a terminal.
final class Progress {
    let label: String
    let total: Int
    let enabled: Bool
    private var lastPercent = -1

    init(label: String, total: Int) {
        self.label = label
        self.total = total
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
        Terminal.err("\r\(label) [\(bar)] \(percent)% (\(done)/\(total))")
    }

    func finish() {
        guard enabled, lastPercent >= 0 else { return }
        Terminal.err("\n")
        lastPercent = -1
    }
}
