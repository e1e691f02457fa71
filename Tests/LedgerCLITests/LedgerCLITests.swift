import Testing

@Test func placeholderLedgerCLITests() { #expect(Bool(true)) }
