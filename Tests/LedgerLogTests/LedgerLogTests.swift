import Testing

@Test func placeholderLedgerLogTests() { #expect(Bool(true)) }
