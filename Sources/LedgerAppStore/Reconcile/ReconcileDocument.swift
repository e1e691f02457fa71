import LedgerJSON

/// One response `ledger reconcile` imports to fill in missed webhooks: an App Store Server API
/// page of transaction history, a subscription-statuses response, or a legacy `verifyReceipt` response.
public enum ReconcileDocument: Hashable, Sendable {
    /// Get Transaction History (`signedTransactions`, `revision`, `hasMore`, …).
    case transactionHistory(TransactionHistoryResponse)
    /// Get All Subscription Statuses (`data[].lastTransactions[]`, …).
    case subscriptionStatuses(SubscriptionStatusesResponse)
    /// A legacy `verifyReceipt` response (`status`, `receipt`, `latest_receipt_info`, …), unsigned.
    case legacyReceipt(LegacyReceiptResponse)
    /// A document of the file that is none of these, or that its own decoding refuses (an API error body, a
    /// legacy receipt whose `status` carries no receipt): refused on its own, into the quarantine, while the
    /// file's other documents are imported.
    case refused(raw: JSONValue, reason: AppStoreError)

    /// Whether this is a page of transaction history (or of refund history, or a Get Transaction Info response).
    public var isTransactionHistory: Bool {
        if case .transactionHistory = self { return true }
        return false
    }

    /// Recognises and decodes one response by its shape: `signedTransactions` is transaction
    /// history (or refund history, the same shape), a top-level `signedTransactionInfo` is Get Transaction Info
    /// (read as a page of one), a `data` array is subscription statuses, a `status` without either is a legacy
    /// receipt.
    ///
    /// - Throws: ``AppStoreError/Code/unrecognizedDocument`` for any other JSON (a notification body
    ///   is named as such: it belongs to `ledger ingest`); the response's own decoding errors,
    ///   including ``AppStoreError/Code/receiptStatus`` for a refused legacy receipt.
    public static func parse(_ json: JSONValue) throws(AppStoreError) -> ReconcileDocument {
        guard case .object(let object) = json else {
            throw AppStoreError(
                .unrecognizedDocument,
                "a reconcile document must be a JSON object, not \(json.kindName); expected an App Store Server "
                    + "API response or a verifyReceipt response")
        }
        if object["signedTransactions"] != nil {
            return .transactionHistory(try TransactionHistoryResponse(json: json))
        }
        if case .array? = object["data"] {
            return .subscriptionStatuses(try SubscriptionStatusesResponse(json: json))
        }
        if object["signedTransactionInfo"] != nil {
            return .transactionHistory(try TransactionHistoryResponse(transactionInfo: json))
        }
        if object["status"] != nil {
            return .legacyReceipt(try LegacyReceiptResponse(json: json))
        }
        if object["signedPayload"] != nil || object["notificationType"] != nil {
            throw AppStoreError(
                .unrecognizedDocument,
                "this is an App Store Server Notification, not an API response; feed it to `ledger ingest`")
        }
        if let code = object["errorCode"] {
            let message = object["errorMessage"].flatMap(\.string).map { ": \($0)" } ?? ""
            throw AppStoreError(
                .unrecognizedDocument,
                "an App Store Server API error response (errorCode \(code.serialized())\(message)); it holds no facts")
        }
        if object["notificationHistory"] != nil {
            throw AppStoreError(
                .unrecognizedDocument,
                "a Get Notification History response: its notificationHistory[].signedPayload items are "
                    + "notifications; feed them to `ledger ingest`")
        }
        let keys = object.keys.prefix(5).joined(separator: ", ")
        throw AppStoreError(
            .unrecognizedDocument,
            "unrecognised reconcile document (members: \(keys)); expected Get Transaction History "
                + "(signedTransactions), Get All Subscription Statuses (data[].lastTransactions) or a "
                + "verifyReceipt response (status)")
    }

    /// Splits a reconcile file into its documents: one JSON document, a JSON array of documents
    /// (pages), or JSON Lines (one document per line, blank lines ignored).
    ///
    /// - Throws: ``AppStoreError/Code/invalidValue`` naming the line of the first unreadable JSON.
    public static func split(_ bytes: [UInt8]) throws(AppStoreError) -> [JSONValue] {
        if let whole = try? JSONValue.parse(bytes) {
            if case .array(let documents) = whole { return documents }
            return [whole]
        }
        var documents: [JSONValue] = []
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            do {
                documents.append(try JSONValue.parse(Array(line)))
            } catch {
                throw AppStoreError(
                    .invalidValue,
                    "line \(lineNumber) is not JSON (\(error)); a reconcile file holds one JSON document, an "
                        + "array of documents, or one document per line", cause: error)
            }
        }
        return documents
    }

    /// Splits a reconcile file and recognises each of its documents; one that ``parse(_:)`` refuses is
    /// ``refused(raw:reason:)``, alone.
    ///
    /// - Throws: ``AppStoreError/Code/invalidValue`` only when the file itself is not JSON (see ``split(_:)``).
    public static func parseAll(_ bytes: [UInt8]) throws(AppStoreError) -> [ReconcileDocument] {
        var out: [ReconcileDocument] = []
        for document in try split(bytes) {
            do {
                out.append(try parse(document))
            } catch {
                out.append(.refused(raw: document, reason: error))
            }
        }
        return out
    }
}
