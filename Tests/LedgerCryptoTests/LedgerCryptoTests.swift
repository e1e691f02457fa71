import Testing

@Test func placeholderLedgerCryptoTests() { #expect(Bool(true)) }
