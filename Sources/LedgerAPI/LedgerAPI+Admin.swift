import LedgerCore
import LedgerHTTP
import LedgerJSON
import LedgerService
import LedgerStore

extension LedgerAPI {
    /// `POST /v1/corrections` (admin): `{"subject":{"userId"|"accountToken"|"originalTransactionId"},
    /// "action":"grant"|"revoke","productId","from","until","reason","operator"}`.
    func correction(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try request.jsonBody()
        let query = try subject(body["subject"])
        let from = try time(body, "from")
        let action: Correction.Action
        switch body["action"]?.string {
        case "grant":
            guard let product = body["productId"]?.string, !product.isEmpty, product.utf8.count <= 256 else {
                throw HTTPError.badRequest("a grant needs productId (at most 256 bytes)")
            }
            let until = try time(body, "until")
            guard until > from else { throw HTTPError.badRequest("until must be after from") }
            action = .grant(productId: product, from: from, until: until)
        case "revoke":
            action = .revoke(from: from)
        default:
            throw HTTPError.badRequest("action must be grant or revoke")
        }
        let (reason, name) = try operatorFields(body)
        let outcome = try serviceCall { () throws(ServiceError) in
            try ledger.correct(query, action: action, reason: reason, operatorName: name)
        }
        return appended(outcome)
    }

    /// `POST /v1/links` (admin): `{"originalTransactionId","userId"|"accountToken","reason","operator"}`, and
    /// `"reassign":true` to move a subscription another user or account owns. 404 for a subscription the ledger
    /// has no record of, 409 for an owned one without `reassign`.
    func link(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try request.jsonBody()
        guard let otid = body["originalTransactionId"]?.string, !otid.isEmpty, otid.utf8.count <= 64 else {
            throw HTTPError.badRequest("originalTransactionId is required")
        }
        let owner = try subject(body)
        let (reason, name) = try operatorFields(body)
        var reassign = false
        if let value = body["reassign"] {
            guard let flag = value.bool else { throw HTTPError.badRequest("reassign must be true or false") }
            reassign = flag
        }
        let answer = try operatorCall { () throws(ServiceError) in
            let outcome = try ledger.link(
                originalTransactionId: otid, to: owner, reason: reason, operatorName: name, reassign: reassign)
            // The owner now: a subscription whose transactions carry an appAccountToken stays that token's.
            return outcome.answer(link: try ledger.linkEffect(originalTransactionId: otid, owner: owner))
        }
        return .json(.object(answer))
    }

    /// `POST /v1/voids` (admin): `{"seq":N,"reason","operator"}`; answers as `POST /v1/corrections` does. 404 for
    /// a seq the log does not hold, 409 for a seq that is itself a void.
    func void(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try request.jsonBody()
        guard case .integer(let seq)? = body["seq"], seq >= 0 else {
            throw HTTPError.badRequest("seq (the record to void) must be a whole number")
        }
        let (reason, name) = try operatorFields(body)
        let outcome = try operatorCall { () throws(ServiceError) in
            try ledger.void(seq: UInt64(seq), reason: reason, operatorName: name)
        }
        return appended(outcome)
    }

    /// ``serviceCall(_:)`` for an operator's record: what it names missing is 404, a contradiction of what the
    /// ledger holds 409.
    func operatorCall<T>(_ body: () throws(ServiceError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            switch error.code {
            case .notFound: throw HTTPError(.notFound, code: .notFound, message: error.message)
            case .conflict: throw HTTPError(.conflict, code: HTTPError.Code("CONFLICT"), message: error.message)
            default: return try serviceCall { () throws(ServiceError) in throw error }
            }
        }
    }

    func subject(_ value: JSONValue?) throws -> SubjectQuery {
        // Whole numbers only: a user id of 1.5 names no user.
        if case .integer(let id)? = value?["userId"], id >= 0, id <= Int64(UInt32.max) { return .user(id) }
        if let text = value?["accountToken"]?.string, let token = AccountToken.canonical(text) {
            return .account(token)
        }
        if let otid = value?["originalTransactionId"]?.string, !otid.isEmpty, otid.utf8.count <= 64 {
            return .originalTransaction(otid)
        }
        throw HTTPError.badRequest("name the subject: userId, accountToken or originalTransactionId")
    }

    func time(_ body: JSONValue, _ name: String) throws -> Instant {
        let instant: Instant? =
            if case .integer(let ms)? = body[name] {
                Instant(inputMilliseconds: ms)
            } else {
                body[name]?.string.flatMap(Instant.init(parsing:))
            }
        guard let instant else {
            throw HTTPError.badRequest(
                "\(name) must be ISO 8601 UTC or milliseconds since the epoch, within the years 0000 to 9999")
        }
        return instant
    }

    func operatorFields(_ body: JSONValue) throws -> (String, String) {
        guard let reason = body["reason"]?.string, let name = body["operator"]?.string else {
            throw HTTPError.badRequest("reason (≤ 2000 bytes) and operator (≤ 200 bytes) are required")
        }
        if let problem = OperatorNote.problem(reason: reason, operatorName: name, names: ("reason", "operator")) {
            throw HTTPError.badRequest(problem)
        }
        return (reason, name)
    }

    func appended(_ outcome: AppendOutcome) -> HTTPResponse {
        .json(.object(outcome.answer()))
    }
}
