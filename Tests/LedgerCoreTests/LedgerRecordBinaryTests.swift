import LedgerTesting
import Testing

@testable import LedgerCore

@Suite("Binary record encoding")
struct LedgerRecordBinaryTests {
    @Test("randomized records survive an encode/decode round trip, from any byte container")
    func roundTrip() throws {
        var records = RandomRecords(seed: 1)
        for _ in 0..<3_000 {
            let record = records.record()
            let bytes = record.encoded()
            #expect(bytes.first == LedgerRecord.currentVersion)
            #expect(try LedgerRecord(decoding: bytes) == record)
            #expect(try LedgerRecord(decoding: ([0xFF] + bytes + [0xFF]).dropFirst().dropLast()) == record)
            let raw = try bytes.withUnsafeBytes { (buffer) throws(CoreError) in try LedgerRecord(decoding: buffer) }
            #expect(raw == record)
            #expect(record.encoded() == bytes, "the encoding is deterministic")
            // Version 1, which logs written before version 2 hold, reads back as the same record.
            let version1 = record.encodedVersion1()
            #expect(version1.first == 1)
            #expect(try LedgerRecord(decoding: version1) == record)
            #expect(version1.count == bytes.count, "the same fields, in another order")
        }
    }

    @Test("storableEncoding: what it returns decodes to the record; an oversized string or digest is refused")
    func storability() throws {
        var records = RandomRecords(seed: 9)
        for _ in 0..<1_000 {
            let record = records.record()
            let bytes = try record.storableEncoding()
            #expect(bytes == record.encoded())
            #expect(try LedgerRecord(decoding: bytes) == record)
        }
        let longest = String(repeating: "p", count: BinaryReader.maxStringLength)
        var record = LedgerRecord(
            environment: .production, source: .notification, idempotencyKey: "k",
            subject: Subject(originalTransactionId: "1", appAccountToken: nil, userId: nil))
        record.transaction = TransactionFacts(
            transactionId: "1", originalTransactionId: "1", productId: longest, purchaseDate: Instant(milliseconds: 0),
            expiresDate: nil, signedDate: Instant(milliseconds: 0))
        #expect(try LedgerRecord(decoding: try record.storableEncoding()) == record, "the limit itself is stored")
        record.transaction?.productId = longest + "p"
        #expect {
            try record.storableEncoding()
        } throws: { error in
            let error = error as? CoreError
            return error?.code == .limitExceeded && error?.message.contains("65537 bytes") == true
        }
        record.transaction?.productId = "p"
        record.evidence = [UInt8](repeating: 7, count: 65)
        #expect {
            try record.storableEncoding()
        } throws: { error in
            (error as? CoreError)?.code == .limitExceeded
        }
    }

    @Test("the evidence reference is found where the record holds it, without decoding the record")
    func evidenceRange() throws {
        var records = RandomRecords(seed: 2)
        for _ in 0..<3_000 {
            let record = records.record()
            let bytes = record.encoded()
            let range = bytes.withUnsafeBytes { LedgerRecord.evidenceRange(inEncoded: $0) }
            #expect(range.map { Array(bytes[$0]) } == record.evidence)
            let version1 = record.encodedVersion1()
            let range1 = version1.withUnsafeBytes { LedgerRecord.evidenceRange(inEncoded: $0) }
            #expect(range1.map { Array(version1[$0]) } == record.evidence)
            // A truncated record refers to nothing it cannot prove.
            if let range, range.upperBound > 0 {
                let cut = Array(bytes[..<(range.upperBound - 1)])
                #expect(cut.withUnsafeBytes { LedgerRecord.evidenceRange(inEncoded: $0) } == nil)
            }
        }
    }

    @Test("the records Apple sends round-trip and stay compact")
    func realisticRecords() throws {
        for lifecycle in Lifecycle.all {
            for entry in lifecycle.entries {
                let bytes = entry.record.encoded()
                #expect(try LedgerRecord(decoding: bytes) == entry.record)
                #expect(bytes.count < 400, "\(lifecycle.name): \(bytes.count) bytes")
            }
        }
        // The notification UUID repeats the idempotency key: stored once.
        let record = Lifecycle.purchase.entries[0].record
        let key = Array(record.idempotencyKey.utf8)
        let bytes = record.encoded()
        let occurrences = (0...(bytes.count - key.count)).filter { Array(bytes[$0..<$0 + key.count]) == key }.count
        #expect(occurrences == 1)
    }

    @Test("absent optional fields cost nothing")
    func absentFieldsAreFree() {
        let minimal = LedgerRecord(
            environment: .sandbox, source: .notification, idempotencyKey: "k", subject: Subject())
        // version, parts, "Sandbox" (1 + 7), source, "k" (1 + 1), subject mask
        #expect(minimal.encoded().count == 14)
    }

    @Test("every truncation of an encoding throws 'truncated', never traps")
    func truncations() {
        var records = RandomRecords(seed: 2)
        for _ in 0..<100 {
            let bytes = records.record().encoded()
            let version1 = records.record().encodedVersion1()
            for length in 0..<bytes.count {
                #expect(throws: CoreError(.truncated, "")) { try LedgerRecord(decoding: bytes[0..<length]) }
            }
            for length in 0..<version1.count {
                #expect(throws: CoreError(.truncated, "")) { try LedgerRecord(decoding: version1[0..<length]) }
            }
        }
    }

    @Test("random and mutated bytes never trap; what decodes re-encodes to the same record")
    func hostileBytes() throws {
        var records = RandomRecords(seed: 3)
        var decoded = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...300, using: &records.random)).map { _ in
                    UInt8.random(in: 0...255, using: &records.random)
                }
                if !bytes.isEmpty, records.chance() { bytes[0] = round % 4 == 0 ? 1 : LedgerRecord.currentVersion }
            } else {
                bytes = round % 4 == 1 ? records.record().encodedVersion1() : records.record().encoded()
                for _ in 0..<Int.random(in: 1...4, using: &records.random) {
                    let position = Int.random(in: 0..<bytes.count, using: &records.random)
                    bytes[position] ^= UInt8(1) << UInt8.random(in: 0...7, using: &records.random)
                }
            }
            guard let record = try? LedgerRecord(decoding: bytes) else { continue }
            decoded += 1
            #expect(try LedgerRecord(decoding: record.encoded()) == record)
        }
        #expect(decoded > 0, "some mutations still decode (a flipped bit inside a string)")
    }

    @Test("a newer version is refused with a clear error; damage is named")
    func versionsAndDamage() throws {
        var bytes = Lifecycle.purchase.entries[0].record.encoded()
        bytes[0] = LedgerRecord.currentVersion + 1
        let error = #expect(throws: CoreError.self) { try LedgerRecord(decoding: bytes) }
        #expect(error?.code == .unsupportedVersion)
        #expect(error?.message.contains("upgrade") == true)

        bytes[0] = 0
        #expect(throws: CoreError(.malformed, "")) { try LedgerRecord(decoding: bytes) }

        bytes[0] = LedgerRecord.currentVersion
        #expect(throws: CoreError(.malformed, "")) { try LedgerRecord(decoding: bytes + [0]) }

        var unknownPart = bytes
        unknownPart[1] |= 0x40  // a part this version does not define
        #expect(throws: CoreError(.malformed, "")) { try LedgerRecord(decoding: unknownPart) }

        #expect(throws: CoreError(.truncated, "")) { try LedgerRecord(decoding: [UInt8]()) }
    }

    @Test("varints: every width round-trips, overlong and overflowing ones are refused")
    func varints() {
        for shift in 0..<64 {
            for value in [UInt64(1) << shift, (UInt64(1) << shift) - 1, UInt64.max >> (63 - shift)] {
                var writer = BinaryWriter()
                writer.writeVarint(value)
                writer.writeSigned(Int64(bitPattern: value))
                let decoded = writer.bytes.withUnsafeBytes { raw -> [Int64]? in
                    var reader = BinaryReader(raw)
                    do throws(CoreError) {
                        return [Int64(bitPattern: try reader.readVarint()), try reader.readSigned()]
                    } catch { return nil }
                }
                #expect(decoded == [Int64(bitPattern: value), Int64(bitPattern: value)])
            }
        }
        let overflow: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]
        let error = overflow.withUnsafeBytes { raw -> CoreError? in
            var reader = BinaryReader(raw)
            do throws(CoreError) {
                _ = try reader.readVarint()
                return nil
            } catch { return error }
        }
        #expect(error?.code == .malformed)
    }
}

extension LedgerRecordBinaryTests {
    @Test("varints: the word-at-a-time reading agrees with a byte-by-byte reference at every width and padding")
    func varintsAgainstReference() {
        /// The reference: seven bits a byte, low group first; nil where it is cut short.
        func reference(_ bytes: [UInt8]) -> (value: UInt64, length: Int)? {
            var value: UInt64 = 0
            for (index, byte) in bytes.prefix(10).enumerated() {
                value |= UInt64(byte & 0x7F) << (7 * UInt64(index))
                if byte < 0x80 { return (value, index + 1) }
            }
            return nil
        }
        var generator = SystemRandomNumberGenerator()
        var encodings: [[UInt8]] = []
        for _ in 0..<2_000 {
            let value = UInt64.random(in: 0...UInt64.max, using: &generator) >> UInt64.random(in: 0...63)
            var writer = BinaryWriter()
            writer.writeVarint(value)
            encodings.append(writer.bytes)
            // The same value padded with continuation bytes (a non-minimal encoding, as old writers might).
            let padded = writer.bytes.dropLast() + [writer.bytes.last! | 0x80, 0x00]
            if padded.count <= 10 { encodings.append(Array(padded)) }
        }
        for encoding in encodings {
            let expected = reference(encoding)!
            for padding in 0...10 {
                let bytes = encoding + [UInt8](repeating: 0xAB, count: padding)
                let decoded = bytes.withUnsafeBytes { raw -> (UInt64, Int)? in
                    var reader = BinaryReader(raw)
                    do throws(CoreError) {
                        let value = try reader.readVarint()
                        return (value, raw.count - reader.remaining)
                    } catch { return nil }
                }
                #expect(decoded?.0 == expected.value && decoded?.1 == expected.length, "\(encoding) + \(padding)")
            }
            // Cut short anywhere: refused as truncated, never misread.
            for cut in 0..<encoding.count {
                let error = Array(encoding.prefix(cut)).withUnsafeBytes { raw -> CoreError? in
                    var reader = BinaryReader(raw)
                    do throws(CoreError) {
                        _ = try reader.readVarint()
                        return nil
                    } catch { return error }
                }
                #expect(error?.code == .truncated)
            }
        }
    }
}
