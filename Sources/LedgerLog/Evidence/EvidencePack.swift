import LedgerCrypto

/// The framing of evidence packs: raw evidence bodies appended to `evidence/pack-<8 digits>` files, each as one
/// entry (documented byte by byte in `Events/README.md`):
///
/// ```
/// 0   4  magic "LEVP"
/// 4   1  version (1)
/// 5   3  zero
/// 8   4  body length (u32)
/// 12  4  CRC-32C of the body
/// 16 32  SHA-256 of the body (its content address)
/// 48  4  CRC-32C of bytes 0..<48
/// 52  4  zero
/// 56  …  the body
/// ```
///
/// The header has its own checksum so the index can be rebuilt by reading headers only, skipping bodies.
enum EvidencePack {
    /// The bytes before the body.
    static let headerSize = 56
    /// "LEVP", little-endian.
    static let magic: UInt32 = 0x5056_454C
    /// The entry format version.
    static let version: UInt8 = 1
    /// The largest body one entry holds.
    static let maxBody = Int(UInt32.max)
    /// A pack is rolled (a new file started) once it holds at least this many bytes, unless the options say.
    static let defaultLimit: Int64 = 256 << 20

    /// What an entry's header says.
    struct Header: Equatable {
        /// The body's length.
        var length: Int
        /// The body's CRC-32C.
        var bodyCRC: UInt32
        /// The body's SHA-256.
        var digest: EvidenceDigest

        /// The whole entry's size.
        var entrySize: Int64 { Int64(EvidencePack.headerSize + length) }
    }

    /// The file name of pack `number`: `pack-` and 8 decimal digits.
    static func name(_ number: UInt32) -> String {
        let digits = String(number)
        return "pack-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// The number in a pack's file name, or nil for any other name.
    static func number(name: String) -> UInt32? {
        guard name.hasPrefix("pack-"), name.utf8.count == 13 else { return nil }
        let digits = name.dropFirst(5)
        guard digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return UInt32(digits)
    }

    /// Writes the header of an entry for `body` (whose SHA-256 is `digest`) at `at`.
    static func encodeHeader(body: UnsafeRawBufferPointer, digest: [UInt8], at: UnsafeMutableRawPointer) {
        precondition(digest.count == 32 && body.count <= maxBody)
        at.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt32.self)
        at.storeBytes(of: version, toByteOffset: 4, as: UInt8.self)
        (at + 5).initializeMemory(as: UInt8.self, repeating: 0, count: 3)
        at.storeBytes(of: UInt32(body.count).littleEndian, toByteOffset: 8, as: UInt32.self)
        at.storeBytes(of: CRC32C.update(0, body).littleEndian, toByteOffset: 12, as: UInt32.self)
        digest.withUnsafeBytes { (at + 16).copyMemory(from: $0.baseAddress!, byteCount: 32) }
        let crc = CRC32C.update(0, UnsafeRawBufferPointer(start: at, count: 48))
        at.storeBytes(of: crc.littleEndian, toByteOffset: 48, as: UInt32.self)
        at.storeBytes(of: UInt32(0), toByteOffset: 52, as: UInt32.self)
    }

    /// The header at `at` (``headerSize`` readable bytes), or nil when it is not a valid entry header.
    static func decodeHeader(_ at: UnsafeRawPointer) -> Header? {
        guard at.le32(0) == magic, at.load(fromByteOffset: 4, as: UInt8.self) == version,
            at.le32(4) >> 8 == 0, at.le32(52) == 0,
            CRC32C.update(0, UnsafeRawBufferPointer(start: at, count: 48)) == at.le32(48)
        else { return nil }
        return Header(
            length: Int(at.le32(8)), bodyCRC: at.le32(12),
            digest: EvidenceDigest(UnsafeRawBufferPointer(start: at + 16, count: 32)))
    }

    /// The offset of the first whole, valid entry (header and body checksums hold) in `bytes` after its first
    /// byte, or nil: tells damage (valid entries follow) from a torn tail (nothing valid follows).
    static func nextEntry(in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            guard raw.count > headerSize else { return nil }
            var position = 1
            while position + headerSize <= raw.count {
                if raw[position] == 0x4C, raw.baseAddress!.le32(position) == magic,
                    let header = decodeHeader(raw.baseAddress! + position),
                    position + headerSize + header.length <= raw.count,
                    bodyHolds(
                        header,
                        UnsafeRawBufferPointer(
                            rebasing: raw[(position + headerSize)..<(position + headerSize + header.length)]))
                {
                    return position
                }
                position += 1
            }
            return nil
        }
    }

    /// The content addresses of the entries in `bytes`, the bytes after a pack's last valid entry (a tail the
    /// writer's open would cut), each with the offset in `bytes` of the entry it names. Any byte of such an entry
    /// may be the bad one, so every entry that starts there — at byte 0, and wherever the magic and version begin
    /// another — is named both by the SHA-256 its header holds and by the SHA-256 of the body its header's length
    /// delimits (when the body is all there): a single bad byte leaves one of the two the entry's true address.
    static func digests(inTail bytes: [UInt8]) -> [EvidenceDigest: Int] {
        var found: [EvidenceDigest: Int] = [:]
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var start = 0
            while start + 48 <= raw.count {
                defer { start += 1 }
                guard start == 0 || (raw[start] == 0x4C && base.le32(start) == magic && raw[start + 4] == version)
                else { continue }
                let key = EvidenceDigest(UnsafeRawBufferPointer(start: base + start + 16, count: 32))
                if found[key] == nil { found[key] = start }
                let length = Int(base.le32(start + 8))
                guard length <= raw.count - start - headerSize else { continue }
                var hasher = SHA256()
                hasher.update(UnsafeRawBufferPointer(start: base + start + headerSize, count: length))
                let digest = EvidenceDigest(hasher.finalize())!
                if found[digest] == nil { found[digest] = start }
            }
        }
        return found
    }

    /// Whether `body` matches the CRC-32C its header names.
    static func bodyHolds(_ header: Header, _ body: UnsafeRawBufferPointer) -> Bool {
        CRC32C.update(0, body) == header.bodyCRC
    }
}

/// A SHA-256 as four words: a cheap dictionary key.
struct EvidenceDigest: Hashable, Sendable {
    var a: UInt64
    var b: UInt64
    var c: UInt64
    var d: UInt64

    /// The digest in 32 bytes.
    init(_ bytes: UnsafeRawBufferPointer) {
        a = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        b = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        c = bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        d = bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
    }

    /// The digest in a 32-byte array; nil for any other length.
    init?(_ bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self = bytes.withUnsafeBytes { EvidenceDigest($0) }
    }

    /// The digest's 32 bytes.
    var bytes: [UInt8] { withUnsafeBytes(of: self) { Array($0) } }
}

/// Where one body lives in the packs.
struct EvidenceLocation: Sendable, Equatable {
    /// The pack's number.
    var pack: UInt32
    /// The entry's offset in the pack (its header).
    var offset: Int64
    /// The body's length.
    var length: Int
    /// Whether the body failed its CRC when the pack was scanned (reading it reports the damage; storing the
    /// same bytes again writes a fresh copy).
    var damaged = false
}
