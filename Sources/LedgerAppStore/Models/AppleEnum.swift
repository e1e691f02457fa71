/// An Apple enumeration carried as a string, kept raw so a value Apple adds later decodes and is
/// stored instead of failing. Known values are static members of the conforming type.
public protocol AppleStringEnum: Hashable, Sendable, CustomStringConvertible {
    /// Apple's spelling, e.g. `DID_RENEW`.
    var rawValue: String { get }
    /// Wraps any raw value, known or not.
    init(rawValue: String)
    /// Every value the ledger knows, in Apple's documentation order.
    static var allKnown: [Self] { get }
}

/// An Apple enumeration carried as an integer, kept raw so unknown values are stored.
public protocol AppleIntEnum: Hashable, Sendable, CustomStringConvertible {
    /// Apple's number, e.g. `1`.
    var rawValue: Int32 { get }
    /// Wraps any raw value, known or not.
    init(rawValue: Int32)
    /// Every value the ledger knows, in Apple's documentation order.
    static var allKnown: [Self] { get }
}

extension AppleStringEnum {
    /// The raw value.
    public var description: String { rawValue }
    /// Whether this is one of ``allKnown``.
    public var isKnown: Bool { Self.allKnown.contains(self) }
}

extension AppleIntEnum {
    /// The raw value in decimal.
    public var description: String { String(rawValue) }
    /// Whether this is one of ``allKnown``.
    public var isKnown: Bool { Self.allKnown.contains(self) }
}

extension JSONFields {
    /// A string-enumeration member, kept raw.
    func raw<E: AppleStringEnum>(_ key: String, as type: E.Type = E.self) throws(AppStoreError) -> E? {
        try string(key).map(E.init(rawValue:))
    }

    /// An integer-enumeration member, kept raw.
    func raw<E: AppleIntEnum>(_ key: String, as type: E.Type = E.self) throws(AppStoreError) -> E? {
        try int32(key).map(E.init(rawValue:))
    }
}
