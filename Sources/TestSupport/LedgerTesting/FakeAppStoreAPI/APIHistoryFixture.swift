import LedgerAppStore
import LedgerCore
import LedgerCrypto
import LedgerJSON

/// A signed notification history for API tests: `count` renewals spread over `subscriptions`, one a minute
/// from ``start``, each with its signed transaction (the same JWS its notification carries, as transaction
/// history lists it) and a fresh notificationUUID.
public struct APIHistoryFixture: Sendable {
    /// One notification of the history.
    public struct Item: Sendable {
        /// The notification's JWS.
        public var signedPayload: String
        /// Its signedDate, ms.
        public var date: Int64
        /// The signed transaction it carries.
        public var signedTransaction: String
        /// The subscription.
        public var originalTransactionId: String
        /// The webhook body Apple would have POSTed.
        public var body: [UInt8] { TestPKI.body(signedPayload) }
    }

    /// The first notification's time: 2026-03-01T00:00:00Z.
    public static let start = TestPKI.Payloads.signedDate

    /// The notifications, oldest first.
    public let items: [Item]

    /// A history of these items.
    public init(items: [Item]) { self.items = items }

    /// Signs `count` notifications with `pki`.
    public init(count: Int, subscriptions: Int = 50, pki: TestPKI = .shared) throws(CryptoError) {
        var items: [Item] = []
        for index in 0..<count {
            let date = Self.start + Int64(index) * 60_000
            let otid = String(3_000_000_000_000_000 + index % max(1, subscriptions))
            let transaction = TestPKI.Payloads.transaction(
                originalTransactionId: otid, transactionId: String(4_000_000_000_000_000 + index),
                purchaseDate: date, expiresDate: date + 30 * 86_400_000, signedDate: date)
            let signedTransaction = try pki.sign(transaction)
            let renewal = TestPKI.Payloads.renewalInfo(originalTransactionId: otid, signedDate: date)
            let data = TestPKI.Payloads.notificationData(
                signedTransactionInfo: signedTransaction, signedRenewalInfo: try pki.sign(renewal))
            let notification = TestPKI.Payloads.notification(
                type: "DID_RENEW", uuid: TestPKI.Payloads.uuid(index + 1), signedDate: date, data: data)
            items.append(
                Item(
                    signedPayload: try pki.sign(notification), date: date, signedTransaction: signedTransaction,
                    originalTransactionId: otid))
        }
        self.items = items
    }

    /// Serves the whole history, and each subscription's transaction history, from `fake`.
    public func serve(from fake: FakeAppStoreAPI) {
        fake.add(items.map { FakeAppStoreAPI.Notification(date: $0.date, signedPayload: $0.signedPayload) })
        var bySubscription: [String: [String]] = [:]
        var order: [String] = []
        for item in items {
            if bySubscription[item.originalTransactionId] == nil { order.append(item.originalTransactionId) }
            bySubscription[item.originalTransactionId, default: []].append(item.signedTransaction)
        }
        for otid in order { fake.addTransactions(bySubscription[otid] ?? [], ids: [otid]) }
    }

    /// A copy of a JWS whose payload says something else than was signed (its `signedDate` moved by a second):
    /// the signature no longer holds.
    public static func tampered(_ jws: String) -> String {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let bytes = Base64.decodeURL(parts[1]),
            var payload = try? JSONValue.parse(bytes), case .object(var object) = payload
        else { return jws }
        object["signedDate"] = .integer((object["signedDate"]?.int64 ?? 0) + 1000)
        payload = .object(object)
        return parts[0] + "." + Base64.encodeURL(payload.serializedBytes()) + "." + parts[2]
    }
}
