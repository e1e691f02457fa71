#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The checked header of a JWS just verified, with the header segment it was decoded from, handed from a
/// notification's envelope to the JWSs nested in it.
///
/// Every JWS of one notification is signed by the same key and carries the same header, byte for byte: a nested
/// one whose segment equals the envelope's is matched with one `memcmp`, instead of hashing its ~3.7 KB segment and
/// looking it up in the verifier's shared cache under its lock. A segment that differs in any byte goes to the
/// cache, as every JWS did before; the header found either way is the same.
struct KnownHeader {
    /// The header segment the header was decoded from (a slice of the JWS verified, not a copy).
    let segment: ArraySlice<UInt8>
    /// The checked header.
    let header: SigningHeader

    /// The header, when `other` holds exactly the bytes of ``segment``.
    func header(for other: ArraySlice<UInt8>) -> SigningHeader? {
        guard other.count == segment.count else { return nil }
        let same = segment.withUnsafeBytes { known in
            other.withUnsafeBytes { candidate in
                known.isEmpty || memcmp(known.baseAddress!, candidate.baseAddress!, known.count) == 0
            }
        }
        return same ? header : nil
    }
}
