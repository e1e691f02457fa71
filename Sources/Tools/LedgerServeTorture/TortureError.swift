/// Why a torture step could not run or found a failure; printed as `error: …` (or `FAIL …` for findings).
struct TortureError: Error, CustomStringConvertible {
    /// What happened and what to do.
    var message: String
    /// The exit status: 1 for a finding (a lost acknowledgement), 64 for a usage error, 70 otherwise.
    var status: Int32

    init(_ message: String, status: Int32 = 70) {
        self.message = message
        self.status = status
    }

    /// A finding: the server broke a promise.
    static func finding(_ message: String) -> TortureError { TortureError(message, status: 1) }

    /// A usage error.
    static func usage(_ message: String) -> TortureError { TortureError(message, status: 64) }

    var description: String { message }
}
