import Testing

@Test func placeholderLedgerAppStoreTests() { #expect(Bool(true)) }
