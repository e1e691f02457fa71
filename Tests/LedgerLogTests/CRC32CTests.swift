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

@Suite struct CRC32CHardwareTests {
    // Around the three-lane blocks (384 bytes) of the hardware path too.
    @Test(arguments: [0, 1, 3, 7, 8, 9, 15, 16, 17, 100, 383, 384, 385, 451, 767, 768, 769, 1000, 4096, 65_537])
    func hardwareAndSoftwareAgree(length: Int) {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
        let seed = UInt32.random(in: 0...UInt32.max, using: &random)
        bytes.withUnsafeBytes { raw in
            #expect(CRC32C.update(seed, raw) == CRC32C.software(seed, raw))
            #expect(CRC32C.update(0, raw) == CRC32C.software(0, raw))
        }
    }

    @Test func everyLengthAndAlignmentAgree() {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<1_300).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes.withUnsafeBytes { raw in
            for start in 0..<8 {
                for length in 0...(1_200 - start) {
                    let slice = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
                    let seed = UInt32(truncatingIfNeeded: length &* 2_654_435_761)
                    if CRC32C.update(seed, slice) != CRC32C.software(seed, slice) {
                        Issue.record("hardware and software differ at start \(start), length \(length)")
                        return
                    }
                }
            }
        }
    }

    @Test func softwareMeetsTheCheckValue() {
        Array("123456789".utf8).withUnsafeBytes { #expect(CRC32C.software(0, $0) == 0xE306_9283) }
    }
}
