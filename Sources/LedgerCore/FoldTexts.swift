/// A string of the fold's input: where its UTF-8 bytes are in the ``FoldTexts`` of its batch.
///
/// The fold's facts hold these instead of `String`s: a fact is then plain data (no reference counting when it is
/// copied, sorted or dropped), and reading a record's identifiers costs no allocation and no copy (a decoded
/// record's texts point into its payload). Texts are identifiers (ids, tokens, product ids, idempotency keys):
/// they are their bytes, equal when their bytes are and ordered by their bytes, as the log's indexes treat them.
/// For ASCII, which Apple's identifiers are, that is also how `String`s compare. Compare them with
/// ``FoldTexts/equal(_:_:)``, never by position.
struct FoldText: Sendable {
    let start: Int
    let count: Int

    /// The text of no value (no bytes): a transaction's fields when a record carries none.
    static let none = FoldText(start: 0, count: 0)
}

/// The bytes behind a batch's ``FoldText``s: the records' payloads back to back, and any string added whole.
struct FoldTexts: Sendable {
    private var bytes: [UInt8] = []

    /// How many bytes it holds.
    var byteCount: Int { bytes.count }

    /// Reserves room for `count` more bytes.
    mutating func reserve(_ count: Int) {
        bytes.reserveCapacity(bytes.count + count)
    }

    /// Forgets every text, keeping the storage.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Appends a run of bytes (a record's payload) and returns where it starts.
    mutating func append(_ run: UnsafeRawBufferPointer) -> Int {
        let start = bytes.count
        bytes.append(contentsOf: run)
        return start
    }

    /// Adds a string's UTF-8 bytes as a text.
    mutating func add(_ string: String) -> FoldText {
        var copy = string
        return copy.withUTF8 { utf8 in
            let start = append(UnsafeRawBufferPointer(utf8))
            return FoldText(start: start, count: utf8.count)
        }
    }

    /// Calls `body` with the bytes of `start..<end` (valid only during the call).
    @inline(__always)
    func withBytes<Result>(from start: Int, to end: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
    }

    /// Calls `body` with a text's bytes (valid only during the call).
    @inline(__always)
    func withBytes<Result>(_ text: FoldText, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withBytes(from: text.start, to: text.start + text.count, body)
    }

    /// A text as a `String` (a shared constant for the catalog's and Apple's names).
    func string(_ text: FoldText) -> String {
        withBytes(text) { raw in
            let utf8 = raw.bindMemory(to: UInt8.self)
            if utf8.count > 15, BinaryReader.isASCII(utf8), let known = InternedStrings.lookup(utf8) { return known }
            return String(decoding: utf8, as: UTF8.self)
        }
    }

    /// A text's hash (``EntitlementFold/Fact/hash(_:)`` of its bytes).
    func hash(_ text: FoldText) -> UInt64 {
        withBytes(text) { EntitlementFold.Fact.hash($0) }
    }

    /// Whether two texts have the same bytes.
    @inline(__always)
    func equal(_ lhs: FoldText, _ rhs: FoldText) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.start == rhs.start { return true }
        return bytes.withUnsafeBytes { raw in
            Self.equal(
                UnsafeRawBufferPointer(rebasing: raw[lhs.start..<lhs.start + lhs.count]),
                UnsafeRawBufferPointer(rebasing: raw[rhs.start..<rhs.start + rhs.count]))
        }
    }

    /// Whether two optional texts are both absent, or both present with the same bytes.
    func equal(_ lhs: FoldText?, _ rhs: FoldText?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let left?, let right?): return equal(left, right)
        default: return false
        }
    }

    /// Whether a text's bytes are a string's UTF-8.
    func equals(_ text: FoldText, _ string: String) -> Bool {
        var copy = string
        return copy.withUTF8 { utf8 in withBytes(text) { Self.equal($0, UnsafeRawBufferPointer(utf8)) } }
    }

    /// Whether `lhs`'s bytes sort before `rhs`'s.
    func precedes(_ lhs: FoldText, _ rhs: FoldText) -> Bool {
        withBytes(lhs) { left in withBytes(rhs) { right in Self.precedes(left, right) } }
    }

    /// ``identifierPrecedes(_:_:)`` on texts: shorter first, then by bytes.
    func identifierPrecedes(_ lhs: FoldText, _ rhs: FoldText) -> Bool {
        lhs.count != rhs.count ? lhs.count < rhs.count : precedes(lhs, rhs)
    }

    /// Whether two runs of bytes are equal, a word at a time.
    @inline(__always)
    static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        let count = lhs.count
        guard count == rhs.count else { return false }
        guard let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        guard count >= 8 else {
            for offset in 0..<count where lhs[offset] != rhs[offset] { return false }
            return true
        }
        var offset = 0
        while offset + 8 <= count {
            if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        // The last word, overlapping the ones compared: no byte loop for the tail.
        return left.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            == right.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
    }

    /// Whether `lhs` sorts before `rhs` byte by byte (a prefix first), a word at a time.
    static func precedes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        let common = min(lhs.count, rhs.count)
        var offset = 0
        if let left = lhs.baseAddress, let right = rhs.baseAddress {
            while offset + 8 <= common {
                let a = UInt64(bigEndian: left.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let b = UInt64(bigEndian: right.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                if a != b { return a < b }
                offset += 8
            }
        }
        while offset < common {
            if lhs[offset] != rhs[offset] { return lhs[offset] < rhs[offset] }
            offset += 1
        }
        return lhs.count < rhs.count
    }
}
