import LedgerCore
import LedgerCrypto
import LedgerHTTP
import LedgerJSON
import LedgerService

extension LedgerAPI {
    func userId(_ request: HTTPRequest) throws -> Int64 {
        guard let text = request.parameter("id"), let id = AccountToken.userId(text: text) else {
            throw HTTPError.badRequest(
                "the user id must be an integer from 0 to \(UInt32.max), in decimal digits without a sign or leading zero"
            )
        }
        return id
    }

    func account(_ request: HTTPRequest) throws -> SubjectQuery {
        guard let text = request.parameter("uuid"), let token = AccountToken.canonical(text) else {
            throw HTTPError.badRequest("the account must be an appAccountToken UUID")
        }
        return .account(token)
    }

    /// The subscription of `/v1/subscriptions/{originalTransactionId}/…`: Apple's originalTransactionId, a decimal
    /// number of at most 64 digits, as the user routes take a user id in decimal digits only. A typo (a space, a
    /// UUID pasted into the wrong route) is a 400, not the empty state of a subscription no one has.
    func subscription(_ request: HTTPRequest) throws -> SubjectQuery {
        guard let otid = request.parameter("originalTransactionId"), Self.isOriginalTransactionId(otid) else {
            throw HTTPError.badRequest(
                "the original transaction id must be Apple's originalTransactionId: 1 to 64 decimal digits")
        }
        return .originalTransaction(otid)
    }

    /// Whether `text` can be an originalTransactionId: 1 to 64 ASCII digits.
    static func isOriginalTransactionId(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    func instant(_ request: HTTPRequest, _ name: String) throws -> Instant? {
        guard let text = request.query(name) else { return nil }
        guard let instant = Instant(parsing: text) else {
            throw HTTPError.badRequest(
                "\(name) must be ISO 8601 UTC (2026-03-01T00:00:00Z) or milliseconds since the epoch, within the "
                    + "years 0000 to 9999")
        }
        return instant
    }

    /// `GET …/entitlement?at=T&knownAt=K`: the `ledger state` JSON.
    func entitlement(_ request: HTTPRequest, query: SubjectQuery) throws -> HTTPResponse {
        let at = try instant(request, "at") ?? Instant(milliseconds: clock())
        let knownAt = try instant(request, "knownAt")
        return .json(
            try serviceCall { () throws(ServiceError) in try ledger.state(of: query, at: at, knownAt: knownAt) }.json)
    }

    /// `GET …/history?knownAt=K&asOf=T`: the `ledger history` JSON.
    func history(_ request: HTTPRequest, query: SubjectQuery) throws -> HTTPResponse {
        let knownAt = try instant(request, "knownAt")
        let asOf = try instant(request, "asOf")
        let (entries, voids) = try serviceCall { () throws(ServiceError) in
            try ledger.historyAndVoids(of: query, asOf: asOf, knownAt: knownAt)
        }
        return .json(LedgerEntry.historyJSON(entries, voids: voids))
    }

    /// `GET /v1/digest`: the head to pin.
    func digest() -> HTTPResponse {
        let head = ledger.head
        return .json(
            .object([
                "seq": .integer(Int64(clamping: head.seq)), "head": .string(Hex.encode(head.hash)),
                "at": .string(Instant(milliseconds: head.seq == 0 ? clock() : ledger.headTime).iso8601),
            ]))
    }

    /// Runs a service call, turning its failure into a 503 (storage) or 500.
    func serviceCall<T>(_ body: () throws(ServiceError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            switch error.code {
            case .storage, .locked:
                throw HTTPError(
                    .serviceUnavailable, code: .unavailable, message: error.message, headers: ["Retry-After": "5"])
            case .invalidInput, .environmentMismatch:
                throw HTTPError.badRequest(error.message)
            default:
                throw HTTPError(.internalServerError, code: .internalError, message: error.message)
            }
        }
    }
}
