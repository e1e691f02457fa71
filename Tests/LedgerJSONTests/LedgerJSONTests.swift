import Testing

@Test func placeholderLedgerJSONTests() { #expect(Bool(true)) }
