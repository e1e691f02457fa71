import Testing

@testable import LedgerLog

@Suite struct CRC32CTests {
    @Test func standardCheckValue() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    }

    @Test func emptyInputIsZero() {
        #expect(CRC32C.checksum([UInt8]()) == 0)
    }

    @Test(arguments: [1, 7, 8, 9, 63, 1000])
    func incrementalEqualsOneShot(split: Int) {
        let bytes = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let whole = CRC32C.checksum(bytes)
        let parts = bytes.withUnsafeBytes { raw in
            CRC32C.update(
                CRC32C.update(0, UnsafeRawBufferPointer(rebasing: raw[0..<split])),
                UnsafeRawBufferPointer(rebasing: raw[split...]))
        }
        #expect(parts == whole)
    }

    @Test func knownVectorOf32Zeros() {
        // RFC 3720 (iSCSI) B.4: 32 bytes of zeros.
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        // 32 bytes of 0xFF.
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    }
}
