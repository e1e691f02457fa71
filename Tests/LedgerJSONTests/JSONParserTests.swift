import LedgerJSON
import Testing

@Test func parsesAppleShapedPayload() throws {
    let text =
        #"{"notificationType":"DID_RENEW","signedDate":1759302518835,"data":{"status":1,"x":[true,null,-2.5e3]}}"#
    let value = try JSONValue.parse(text)
    #expect(value["notificationType"]?.string == "DID_RENEW")
    #expect(value["signedDate"]?.int64 == 1_759_302_518_835)
    #expect(value["data"]?["status"]?.int64 == 1)
    #expect(value["data"]?["x"]?.array == [.bool(true), .null, .double(-2500)])
}

@Test func keepsIntegersExactAndTruncatesFractionalMilliseconds() throws {
    #expect(try JSONValue.parse("9007199254740993").int64 == 9_007_199_254_740_993)
    #expect(try JSONValue.parse("1697679936049.7297").int64 == 1_697_679_936_049)
    #expect(try JSONValue.parse("-62135769600000").int64 == -62_135_769_600_000)
}

@Test func decodesEscapesAndSurrogatePairs() throws {
    let value = try JSONValue.parse(#""a\"b\\c\/\n\u00e9\ud83d\ude00""#)
    #expect(value.string == "a\"b\\c/\né😀")
}

@Test(arguments: [
    "", "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "tru", "\"abc", "\"\\x\"", "{\"a\" 1}", "[1] 2",
    "\"\u{01}\"",
    "\"\\ud800\"", "nan", "{'a':1}",
])
func rejectsMalformedInput(_ text: String) {
    #expect(throws: JSONError.self) { try JSONValue.parse(text) }
}

@Test func enforcesDepthAndSizeLimits() {
    let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(throws: JSONError.self) { try JSONValue.parse(deep, limits: JSONLimits(maxDepth: 64)) }
    #expect(throws: JSONError.self) {
        try JSONValue.parse("[1,2,3]", limits: JSONLimits(maxBytes: 3))
    }
}

@Test func rejectsInvalidUTF8() {
    #expect(throws: JSONError.self) { try JSONValue.parse([0x22, 0xFF, 0x22]) }
}

@Test func serializesRoundTrip() throws {
    let value: JSONValue = .object([
        "a": "x\"y\n\u{01}", "b": [1, 2.5, true, nil], "c": .object([:]), "d": .array([]),
    ])
    let compact = value.serialized()
    #expect(compact == #"{"a":"x\"y\n\u0001","b":[1,2.5,true,null],"c":{},"d":[]}"#)
    #expect(try JSONValue.parse(compact) == value)
    #expect(try JSONValue.parse(value.serialized(.pretty)) == value)
}

@Test func objectSubscriptSetsReplacesAndRemoves() {
    var object: JSONObject = ["a": 1, "b": 2]
    object["a"] = 3
    object["c"] = 4
    object["b"] = nil
    #expect(object.keys == ["a", "c"])
    #expect(object["a"] == 3)
}

@Test(arguments: [
    ("1234567890", Int64?.some(1_234_567_890)), ("1234567890.0", 1_234_567_890), ("1.23456789e9", 1_234_567_890),
    ("-5E0", -5), ("-0.0", 0), ("1.5", nil), ("1e-1", nil), ("9.3e18", nil), ("-9.3e18", nil), ("\"1\"", nil),
    ("true", nil), ("9223372036854775807", Int64.max),
])
func readsExactIntegersAsFoundationsJSONDecoderDoes(text: String, expected: Int64?) throws {
    #expect(try JSONValue.parse(text).exactInt64 == expected)
}

@Test func acceptsNestingUpToItsLimit() throws {
    let deep = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(try JSONValue.parse(deep, limits: JSONLimits(maxDepth: 512)).array?.count == 1)
    #expect(throws: JSONError.self) { try JSONValue.parse("[" + deep + "]", limits: JSONLimits(maxDepth: 512)) }
}
