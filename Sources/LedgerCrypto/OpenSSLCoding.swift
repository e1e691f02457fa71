import CCrypto

/// The DER and PEM plumbing shared by keys and certificates: `i2d_*` into Swift arrays, strict
/// `d2i_*` from them, and memory BIOs for PEM. Every BIO is freed beside its creation.
enum OpenSSLCoding {
    /// Runs an `i2d_*` function twice (length, then bytes) and returns the DER, or nil on failure.
    static func encodeDER(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32)
        -> [UInt8]?
    {
        let length = body(nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return body(&cursor)
        }
        guard written == length else { return nil }
        return out
    }

    /// Runs a `d2i_*` function over all of `bytes`; nil when it fails or leaves bytes unread.
    static func decodeDER(
        _ bytes: [UInt8], free: (OpaquePointer) -> Void,
        decode body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?
    ) -> OpaquePointer? {
        guard !bytes.isEmpty else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let object = body(&cursor, buffer.count) else { return nil }
            guard let end = cursor, end == base + buffer.count else {
                // Trailing bytes after the object: not the exact encoding we were given.
                free(object)
                return nil
            }
            return object
        }
    }

    /// Calls `body` with a read-only memory BIO over `text`.
    static func withReadBIO<R>(_ text: String, _ body: (OpaquePointer) -> R?) -> R? {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { buffer -> R? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count - 1)) else {
                return nil
            }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// Calls `body` with a writable memory BIO and returns what it wrote, or nil when `body` fails.
    static func writingPEM(_ body: (OpaquePointer) -> Int32) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard body(bio) == 1 else { return nil }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = ledger_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return nil }
        let bytes = UnsafeRawBufferPointer(start: data, count: Int(length))
        return String(decoding: bytes, as: UTF8.self)
    }
}
