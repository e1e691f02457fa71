import Testing

@Test func placeholderLedgerCoreTests() { #expect(Bool(true)) }
