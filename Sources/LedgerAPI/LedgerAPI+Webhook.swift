import LedgerAppStore
import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerService
import LedgerSystem

extension LedgerAPI {
    /// `POST /webhooks/apple`: 200 only once the record is durable (or was a duplicate); 400 unreadable
    /// body; 422 verification failed, naming Apple's status; 503 when the log cannot be written.
    func webhook(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = request.body
        let started = SystemClock.monotonicSeconds()
        let result: IngestResult
        do {
            result = try pipeline.ingest(body: body)
        } catch {
            metrics.ingest(outcome: "UNAVAILABLE")
            metrics.logWrite(failed: error.message)
            throw HTTPError(
                .serviceUnavailable, code: .unavailable,
                message:
                    "the ledger cannot write its log right now (\(error.message)); nothing was recorded, retry later",
                headers: ["Retry-After": "30"])
        }
        switch result {
        case .appended(let seq):
            metrics.ingest(outcome: "appended")
            metrics.logWrite(failed: nil)
            metrics.appendLatency.observe(SystemClock.monotonicSeconds() - started)
            return .json(.object(["status": "ok", "seq": .integer(Int64(clamping: seq)), "duplicate": false]))
        case .duplicate(let seq):
            metrics.ingest(outcome: "duplicate")
            return .json(.object(["status": "ok", "seq": .integer(Int64(clamping: seq)), "duplicate": true]))
        case .rejected(let status, let message):
            // An unreadable body (not JSON, no signedPayload) is the client's 400, not a failed verification;
            // the body is parsed only once on the common, accepted path.
            if status == .invalidJWTFormat,
                (try? SignedDataVerifier.signedPayload(fromBody: body)) == nil
            {
                metrics.ingest(outcome: "BAD_REQUEST")
                throw HTTPError(.badRequest, code: .badRequest, message: message)
            }
            metrics.ingest(outcome: status.rawValue)
            if status == .payloadTooLarge {
                throw HTTPError(.payloadTooLarge, code: .payloadTooLarge, message: message)
            }
            throw HTTPError(.unprocessableEntity, code: HTTPError.Code(status.rawValue), message: message)
        }
    }
}

#if canImport(Glibc)
    import Glibc
#endif
