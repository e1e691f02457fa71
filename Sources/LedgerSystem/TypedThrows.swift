/// Byte-buffer access that keeps a typed error.
///
/// The standard library's `withUnsafeBytes` is `rethrows`, which widens a typed error to `any Error`;
/// these keep it.
extension Array where Element == UInt8 {
    /// Calls `body` with the array's bytes, keeping `body`'s error type.
    @inlinable
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        var result: Result<R, E>?
        withUnsafeBytes { raw in result = Result { () throws(E) -> R in try body(raw) } }
        return try result!.get()
    }

    /// Calls `body` with the array's mutable bytes, keeping `body`'s error type.
    @inlinable
    public mutating func withMutableBytes<R, E: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> R
    ) throws(E) -> R {
        var result: Result<R, E>?
        withUnsafeMutableBytes { raw in result = Result { () throws(E) -> R in try body(raw) } }
        return try result!.get()
    }
}
