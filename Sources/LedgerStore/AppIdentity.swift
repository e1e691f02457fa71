/// The app a store's records belong to: its bundle id and, in production, its App Apple ID. A data directory
/// (or a PostgreSQL ledger) records it at its first write that names one, beside its environment; every later
/// writer must name the same.
public struct AppIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The app's bundle id (`com.visla.gps`).
    public var bundleId: String
    /// The app's App Apple ID (required in production, as in Apple's libraries; nil in sandbox).
    public var appAppleId: Int64?

    /// Creates an identity.
    public init(bundleId: String, appAppleId: Int64? = nil) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
    }

    public var description: String {
        "bundle id \(bundleId)" + (appAppleId.map { ", App Apple ID \($0)" } ?? "")
    }

    /// Why a writer naming `wanted` may not write into a store bound to this identity, or nil when it may (the
    /// same bundle id, and the same App Apple ID when both name one).
    public func refusal(of wanted: AppIdentity, at path: String) -> LogError? {
        if wanted.bundleId != bundleId {
            return LogError(
                .appMismatch,
                "\(path) holds the records of bundle id \(bundleId); it cannot take records of bundle id "
                    + "\(wanted.bundleId). Use another data directory for that app")
        }
        if let bound = appAppleId, let other = wanted.appAppleId, bound != other {
            return LogError(
                .appMismatch,
                "\(path) holds the records of App Apple ID \(bound); it cannot take records of App Apple ID "
                    + "\(other). Use another data directory for that app")
        }
        return nil
    }

    /// This identity with what `wanted` adds (an App Apple ID this one lacks); nil when it adds nothing.
    public func adding(_ wanted: AppIdentity) -> AppIdentity? {
        guard appAppleId == nil, let other = wanted.appAppleId, wanted.bundleId == bundleId else { return nil }
        return AppIdentity(bundleId: bundleId, appAppleId: other)
    }
}
