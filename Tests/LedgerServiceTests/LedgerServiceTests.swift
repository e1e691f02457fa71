import Testing

@Test func placeholderLedgerServiceTests() { #expect(Bool(true)) }
