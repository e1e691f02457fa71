import CCrypto

/// Decoding helpers for the fields of an `X509`: names, times and extension OIDs.
enum X509CertificateFields {
    /// A Name's DER encoding (`X509_NAME *` is borrowed, not freed).
    static func nameDER(_ name: OpaquePointer?) -> [UInt8]? {
        guard let name else { return nil }
        return OpenSSLCoding.encodeDER { cursor in i2d_X509_NAME(name, cursor) }
    }

    /// A Name in OpenSSL's one-line form, for messages.
    static func summary(_ name: OpaquePointer?) -> String {
        guard let name else { return "(no name)" }
        var buffer = [CChar](repeating: 0, count: 512)
        guard X509_NAME_oneline(name, &buffer, Int32(buffer.count)) != nil else {
            return "(unreadable name)"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An `ASN1_TIME` (UTCTime or GeneralizedTime) as milliseconds since the epoch.
    static func milliseconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time, let epoch = ASN1_TIME_set(nil, 0) else { return nil }
        defer { ASN1_TIME_free(epoch) }
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, epoch, time) == 1 else { return nil }
        return (Int64(days) * 86_400 + Int64(seconds)) * 1000
    }

    /// The dotted OIDs of every extension, and of those marked critical, in certificate order.
    static func extensionOIDs(_ x509: OpaquePointer) -> (all: [String], critical: [String]) {
        let count = X509_get_ext_count(x509)
        guard count > 0 else { return ([], []) }
        var oids: [String] = []
        var critical: [String] = []
        oids.reserveCapacity(Int(count))
        var buffer = [CChar](repeating: 0, count: 128)
        for index in 0..<count {
            guard let ext = X509_get_ext(x509, index), let object = X509_EXTENSION_get_object(ext) else {
                continue
            }
            let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
            guard length > 0, Int(length) < buffer.count else { continue }
            let oid = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            oids.append(oid)
            if X509_EXTENSION_get_critical(ext) == 1 { critical.append(oid) }
        }
        return (oids, critical)
    }
}
