import LedgerAppStoreAPI
import LedgerCore
import LedgerHTTP
import LedgerService

/// Sending one answer, and counting what became of it.
extension ConsumptionAnswers {
    /// Answers the request at `seq`; true when it is done with (sent, refused for good, past its window or
    /// not to be answered), false when it is to be tried again.
    func answer(_ seq: UInt64) -> Bool {
        let entry: LedgerEntry
        do {
            entry = try Self.entry(ledger, seq)
        } catch {
            report("error: consumption answers: \(error.message)")
            return false
        }
        guard let notification = entry.record.notification, let transaction = entry.record.transaction else {
            return true
        }
        let named =
            "the CONSUMPTION_REQUEST \(notification.uuid) (record \(seq)) for transaction "
            + transaction.transactionId
        let deadline = notification.signedDate.milliseconds + Self.windowMilliseconds
        guard clock() < deadline else {
            report(
                "error: consumption: \(named) is past Apple's 12 hours (until "
                    + "\(Instant(milliseconds: deadline))); it was not answered")
            count("expired")
            return true
        }
        guard consent else {
            report(
                "consumption: \(named) not answered: --consumption-consent no (Apple takes consumption "
                    + "information only with the customer's consent)")
            count("no_consent")
            return true
        }
        let request: ConsumptionRequest
        do {
            request = try ConsumptionFacts.request(for: transaction, ledger: ledger)
        } catch {
            report("error: consumption: \(named): \(error.message)")
            return false
        }
        do {
            try client.sendConsumptionInformation(
                transactionId: transaction.transactionId, request,
                autoRenewable: ConsumptionFacts.isAutoRenewable(transaction))
        } catch {
            count("failed", code: APIPull.metricCode(error))
            // Refused for good: a body or an id Apple will never take. A refused token (401, 403) is the key's
            // fault, which an operator can mend within the 12 hours: tried again, as are 429, 5xx and the network.
            let refused =
                error.code == .invalidRequest
                || (error.code == .apiError && (400..<500).contains(error.httpStatus ?? 0)
                    && ![401, 403, 429].contains(error.httpStatus ?? 0))
            guard !refused else {
                report("error: consumption: \(named): Apple refused it: \(error.message); it is not sent again")
                return true
            }
            let failures = retries.withLock { ($0[seq]?.failures ?? 0) + 1 }
            let pause = min(Self.firstRetryMilliseconds << Int64(min(failures - 1, 6)), 3_600_000)
            let at = min(clock() + pause, deadline - 1)
            retries.withLock { $0[seq] = (at, failures) }
            report(
                "error: consumption: \(named) failed: \(error.message); tried again at \(Instant(milliseconds: at)); "
                    + "the webhook keeps serving")
            return false
        }
        report("consumption: answered \(named): " + request.json.serialized())
        count("sent")
        return true
    }

    /// Counts an outcome (`sent`, `failed`, `expired`, `no_consent`) and, for a failure, its code (Apple's
    /// `errorCode`, `http_<status>`, `transport`, …).
    func count(_ outcome: String, code: String? = nil) {
        guard let metrics else { return }
        func counter(_ key: String, _ make: () -> Counter) -> Counter {
            counters.withLock { table in
                if let found = table[key] { return found }
                let made = make()
                table[key] = made
                return made
            }
        }
        counter("outcome:" + outcome) {
            metrics.counter(
                "ledger_consumption_answers_total", help: "CONSUMPTION_REQUESTs handled by serve, by outcome.",
                labels: ["outcome": outcome])
        }.increment()
        if let code {
            counter("code:" + code) {
                metrics.counter(
                    "ledger_consumption_errors_total", help: "Failed Send Consumption Information calls, by code.",
                    labels: ["code": code])
            }.increment()
        }
    }
}
