import LedgerAppStore
import LedgerCrypto
import LedgerSystem

/// A JSON Lines file of webhook bodies (`ledger simulate`'s `notifications.jsonl`, or `generate`'s): one
/// body per non-blank line; acknowledgements name bodies by their index here.
enum NotificationFile {
    /// The bodies, exactly as they will be POSTed.
    static func read(_ path: String) throws(TortureError) -> [[UInt8]] {
        let read: [UInt8]?
        do {
            read = try PosixFileSystem().readFile(path)
        } catch {
            throw TortureError("cannot read \(path): \(error.message)")
        }
        guard let bytes = read else { throw TortureError("\(path) does not exist") }
        var bodies: [[UInt8]] = []
        for slice in bytes.split(separator: 10, omittingEmptySubsequences: true) {
            let body = Array(slice.last == 13 ? slice.dropLast() : slice)
            if body.allSatisfy({ $0 == 32 || $0 == 9 }) { continue }
            bodies.append(body)
        }
        return bodies
    }

    /// The SHA-256 of a body's `signedPayload`: the digest under which the ledger keeps it as evidence, and
    /// so the identity of the notification a record was made from.
    static func evidenceDigest(of body: [UInt8]) throws(TortureError) -> [UInt8] {
        SHA256.hash(Array(try signedPayload(of: body).utf8))
    }

    /// The notificationUUID a body's signed payload carries (decoded, not verified: the server verifies).
    static func uuid(of body: [UInt8]) throws(TortureError) -> String {
        let payload = try signedPayload(of: body)
        let jws: CompactJWS
        do {
            jws = try CompactJWS(payload)
        } catch {
            throw TortureError("a body's signed payload does not decode: \(error.message)")
        }
        guard let uuid = jws.payload["notificationUUID"]?.string else {
            throw TortureError("a body's signed payload has no notificationUUID")
        }
        return uuid
    }

    /// The `signedPayload` string: found by a scan for the usual `{"signedPayload":"…"}` shape (fast even in a
    /// debug build), else by parsing the JSON.
    static func signedPayload(of body: [UInt8]) throws(TortureError) -> String {
        let key = Array(#""signedPayload":""#.utf8)
        if let start = firstRange(of: key, in: body) {
            let from = start + key.count
            if let end = body[from...].firstIndex(of: UInt8(ascii: "\"")), body[from..<end].firstIndex(of: 92) == nil {
                return String(decoding: body[from..<end], as: UTF8.self)
            }
        }
        do {
            return try SignedDataVerifier.signedPayload(fromBody: body)
        } catch {
            throw TortureError("a body has no signedPayload: \(error.message)")
        }
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = 0
        while index <= haystack.count - needle.count {
            guard let next = haystack[index...].firstIndex(of: needle[0]), next <= haystack.count - needle.count
            else { return nil }
            if haystack[next..<(next + needle.count)].elementsEqual(needle) { return next }
            index = next + 1
        }
        return nil
    }
}
