/// String values that recur in almost every record (environments, notification types and subtypes, product
/// identifiers, transaction types…). Decoding returns these shared constants instead of building a new string
/// each time, which is most of the cost of decoding a record.
///
/// Values up to 32 UTF-8 bytes are keyed by their bytes packed into four words, in an open-addressed table.
enum InternedStrings {
    private struct Entry {
        let words: (UInt64, UInt64, UInt64, UInt64)
        let count: Int
        let value: String
    }

    private static let slotBits = 8
    private static let constants: [String] = [
        // Environments, ownership, reasons, types.
        "Sandbox", "Production", "Xcode", "LocalTesting", "PURCHASED", "FAMILY_SHARED", "PURCHASE", "RENEWAL",
        "Auto-Renewable Subscription", "Non-Renewing Subscription", "Non-Consumable", "Consumable",
        "REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE", "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT",
        "ONE_TIME", "EUR", "USD", "GBP", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "AUD", "CAD", "JPY",
        // Notification types.
        "SUBSCRIBED", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "OFFER_REDEEMED", "DID_RENEW",
        "EXPIRED", "DID_FAIL_TO_RENEW", "GRACE_PERIOD_EXPIRED", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED",
        "CONSUMPTION_REQUEST", "RENEWAL_EXTENDED", "REVOKE", "TEST", "RENEWAL_EXTENSION", "REFUND_REVERSED",
        "EXTERNAL_PURCHASE_TOKEN", "ONE_TIME_CHARGE", "RESCIND_CONSENT", "METADATA_UPDATE", "MIGRATION",
        "PRICE_CHANGE",
        // Subtypes.
        "INITIAL_BUY", "RESUBSCRIBE", "DOWNGRADE", "UPGRADE", "AUTO_RENEW_ENABLED", "AUTO_RENEW_DISABLED",
        "VOLUNTARY", "BILLING_RETRY", "GRACE_PERIOD", "PENDING", "ACCEPTED", "BILLING_RECOVERY",
        "PRODUCT_NOT_FOR_SALE", "SUMMARY", "FAILURE", "UNREPORTED",
    ]

    /// The open-addressed table, built once and never freed: slot → entry index (-1: empty), and the entries.
    /// Raw pointers, so a lookup neither retains nor checks bounds.
    // Immutable once built (a `let` initialised once, thread-safely); the pointers are never written through.
    nonisolated(unsafe) private static let table: (slots: UnsafePointer<Int32>, entries: UnsafePointer<Entry>) = {
        var entries: [Entry] = []
        var slots = [Int32](repeating: -1, count: 1 << slotBits)
        for value in constants + Catalog.visla.products.map(\.id) {
            var copy = value
            guard let key = copy.withUTF8({ key(of: $0) }) else { continue }
            var slot = hash(key.words, key.count)
            var duplicate = false
            while slots[slot] >= 0 {
                let other = entries[Int(slots[slot])]
                if other.count == key.count, other.words == key.words { duplicate = true }
                slot = (slot + 1) & (slots.count - 1)
            }
            if duplicate { continue }
            slots[slot] = Int32(entries.count)
            entries.append(Entry(words: key.words, count: key.count, value: value))
        }
        let slotStorage = UnsafeMutablePointer<Int32>.allocate(capacity: slots.count)
        slotStorage.initialize(from: slots, count: slots.count)
        let entryStorage = UnsafeMutablePointer<Entry>.allocate(capacity: max(entries.count, 1))
        entryStorage.initialize(from: entries, count: entries.count)
        return (UnsafePointer(slotStorage), UnsafePointer(entryStorage))
    }()

    /// The shared constant equal to these bytes, if there is one.
    @inline(__always)
    static func lookup(_ utf8: UnsafeBufferPointer<UInt8>) -> String? {
        guard let key = key(of: utf8) else { return nil }
        let (slots, entries) = table
        var slot = hash(key.words, key.count)
        while true {
            let index = slots[slot]
            if index < 0 { return nil }
            if entries[Int(index)].count == key.count, entries[Int(index)].words == key.words {
                return entries[Int(index)].value
            }
            slot = (slot + 1) & ((1 << slotBits) - 1)
        }
    }

    /// The bytes packed into four little-endian words (zero beyond the end), loaded a word at a time.
    @inline(__always)
    private static func key(of utf8: UnsafeBufferPointer<UInt8>) -> (
        words: (UInt64, UInt64, UInt64, UInt64), count: Int
    )? {
        let count = utf8.count
        guard count <= 32, let base = utf8.baseAddress else { return count == 0 ? ((0, 0, 0, 0), 0) : nil }
        let raw = UnsafeRawPointer(base)
        @inline(__always) func word(_ index: Int) -> UInt64 {
            let start = index * 8
            if start + 8 <= count {
                return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            }
            var value: UInt64 = 0
            var position = count - 1
            while position >= start {
                value = value << 8 | UInt64(base[position])
                position -= 1
            }
            return value
        }
        return ((word(0), word(1), word(2), word(3)), count)
    }

    @inline(__always)
    private static func hash(_ words: (UInt64, UInt64, UInt64, UInt64), _ count: Int) -> Int {
        var mixed = words.0 ^ (words.1 &* 0x9E37_79B9_7F4A_7C15) ^ (words.2 &* 0xC2B2_AE3D_27D4_EB4F)
        mixed ^= (words.3 &* 0x1656_67B1_9E37_79F9) ^ UInt64(count)
        mixed = (mixed ^ (mixed >> 29)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> UInt64(64 - slotBits))
    }
}
