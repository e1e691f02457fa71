import LedgerAppStore
import LedgerCrypto
import LedgerJSON
import LedgerTesting
import Testing

/// A request body of Apple's exact shape is read by a fast path; every other shape by the JSON parser. Both
/// must give the same notification, or the same rejection.
@Suite("Verification: request body shapes")
struct VerificationBodyShapesTests {
    static let signed = Result { try TestPKI.shared.signedNotification(type: "SUBSCRIBED", subtype: "RESUBSCRIBE") }

    /// The same signed payload in bodies of every shape JSON allows.
    static func bodies(_ jws: String) -> [String] {
        [
            #"{"signedPayload":"\#(jws)"}"#,
            " \n{ \"signedPayload\" :\t\"\(jws)\" }\r\n",
            #"{"signedPayload":"\#(jws)","extra":1}"#,
            #"{"extra":"x","signedPayload":"\#(jws)"}"#,
            #"{"signedPayload":"ignored","signedPayload":"\#(jws)"}"#,
            #"{"signed\u0050ayload":"\#(jws)"}"#,
            #"{"signedPayload":"\#(jws.split(separator: ".").joined(separator: "\\u002e"))"}"#,
        ]
    }

    @Test func everyShapeOfBodyGivesTheSameNotification() throws {
        let jws = try Self.signed.get()
        let verifier = try TestPKI.shared.verifier()
        let expected = try verifier.verifyNotification(jws)
        for body in Self.bodies(jws) {
            let verified = try verifier.verifyNotification(body: Array(body.utf8))
            #expect(verified.signedPayloadBytes == Array(jws.utf8), "\(body.prefix(40))")
            // The evidence digest is finished from the signature's digest: it must be the whole JWS's SHA-256.
            #expect(verified.evidence.sha256 == SHA256.hash(Array(jws.utf8)))
            #expect(verified.signedPayload == jws)
            #expect(verified.payload == expected.payload)
            #expect(verified.transaction == expected.transaction)
            #expect(verified.renewalInfo == expected.renewalInfo)
            #expect(try SignedDataVerifier.signedPayload(fromBody: Array(body.utf8)) == jws)
        }
    }

    @Test(arguments: [
        #"{"signedPayload":"a.b.c"} x"#, #"{"signedPayload":"a.b.c""#, #"{"signedPayload":"a.b.c",}"#,
        #"{"signedPayload":"a.b.c" "x"}"#, #"{"signedPayload":"a.b"#, #"{"signedPayload":"a.b.c"}}"#,
        "{\"signedPayload\":\"a.b.\u{01}c\"}", #"{"signedPayload":["a.b.c"]}"#,
    ])
    func aMalformedBodyIsRejectedAsBefore(body: String) throws {
        #expect(throws: VerificationError(.invalidJWTFormat, "")) {
            try TestPKI.shared.verifier().verifyNotification(body: Array(body.utf8))
        }
    }

    @Test func theFastPathAnswersOnlyForTheExactShape() throws {
        let cases: [(String, String?)] = [
            (#"{"signedPayload":"a.b.c"}"#, "a.b.c"),
            (" { \"signedPayload\" : \"\" } ", ""),
            (#"{"signedPayload":"a.b.c","x":1}"#, nil),
            (#"{"signedPayload":"a\/b"}"#, nil),
            (#"{"signedPayload":"é"}"#, nil),
            (#"{"signedPayloadX":"a"}"#, nil),
            (#"{"signedPayload":"a"} 1"#, nil),
            (#"{"signedPayload":1}"#, nil),
            (#"["signedPayload","a"]"#, nil),
            (#"{"signedPayload":"a"#, nil),
        ]
        for (body, expected) in cases {
            let bytes = Array(body.utf8)
            let range = JSONValue.soleStringMember("signedPayload", in: bytes)
            #expect(range.map { String(decoding: bytes[$0], as: UTF8.self) } == expected, "\(body)")
            if let range {
                #expect(
                    try JSONValue.parse(bytes)["signedPayload"]?.string == String(decoding: bytes[range], as: UTF8.self)
                )
            }
        }
    }
}
