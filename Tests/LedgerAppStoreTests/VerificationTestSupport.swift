import LedgerAppStore
import LedgerJSON
import LedgerTesting

/// Surgery on compact JWS for negative tests.
enum JWSParts {
    static func split(_ jws: String) -> [String] {
        jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The JWS with its payload replaced by `payload` (the signature left as it was).
    static func replacingPayload(_ jws: String, with payload: JSONValue) -> String {
        var parts = split(jws)
        parts[1] = Base64.encodeURL(payload.serializedBytes())
        return parts.joined(separator: ".")
    }

    /// The decoded payload of a JWS.
    static func payload(_ jws: String) throws -> JSONValue {
        try JSONValue.parse(Base64.decodeURL(split(jws)[1]) ?? [])
    }

    /// The JWS with one bit of its signature flipped.
    static func flippingSignatureBit(_ jws: String) -> String {
        var parts = split(jws)
        var signature = Base64.decodeURL(parts[2]) ?? []
        signature[10] ^= 0x01
        parts[2] = Base64.encodeURL(signature)
        return parts.joined(separator: ".")
    }
}

extension JSONValue {
    /// The value with `path` (object keys) set to `newValue`.
    func setting(_ path: [String], to newValue: JSONValue) -> JSONValue {
        guard let key = path.first, var object = self.object else { return self }
        if path.count == 1 {
            object[key] = newValue
        } else {
            object[key] = (object[key] ?? .object(JSONObject())).setting(
                Array(path.dropFirst()), to: newValue)
        }
        return .object(object)
    }
}

extension TestPKI {
    /// The error verifying a transaction this PKI signs gets from a verifier trusting its root, or nil
    /// when it verifies.
    func transactionVerificationError() throws -> VerificationError? {
        let signed = try sign(TestPKI.Payloads.transaction())
        do {
            _ = try verifier().verifyTransaction(signed)
            return nil
        } catch {
            return error
        }
    }
}
