import Testing

@Test func placeholderLedgerHTTPTests() { #expect(Bool(true)) }
