/// The reason and name every operator record carries (a link, a correction, a void, a catalog version): some
/// text that is not only white space, within a size an auditor can read.
public enum OperatorNote {
    /// The longest reason, in UTF-8 bytes.
    public static let maxReasonBytes = 2000
    /// The longest operator name, in UTF-8 bytes.
    public static let maxOperatorBytes = 200

    /// What is wrong with a reason and an operator name, or nil when an operator record may carry them.
    ///
    /// - Parameters:
    ///   - reason: why, in the operator's words.
    ///   - operatorName: who.
    ///   - names: what the caller calls the two fields (`--reason`/`--operator`, `reason`/`operator`).
    public static func problem(reason: String, operatorName: String, names: (String, String)) -> String? {
        for (value, name, limit) in [
            (reason, names.0, maxReasonBytes), (operatorName, names.1, maxOperatorBytes),
        ] {
            if value.allSatisfy(\.isWhitespace) { return "\(name) needs some text; white space alone says nothing" }
            if value.utf8.count > limit { return "\(name) is limited to \(limit) bytes" }
        }
        return nil
    }
}

extension LedgerRecord {
    /// Why and who, for an operator's record (a link, a correction, a void, a catalog version); nil for Apple's.
    public var operatorNote: (reason: String, operatorName: String)? {
        if let correction { return (correction.reason, correction.operatorName) }
        if let link { return (link.reason, link.operatorName) }
        if let void { return (void.reason, void.operatorName) }
        if let catalog { return (catalog.reason, catalog.operatorName) }
        return nil
    }
}
