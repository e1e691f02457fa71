/// A stable, opaque classification of the failures of one error type, e.g. `LogError.Code.locked`.
///
/// `Domain` is the error the code classifies, so the codes of one module never mix with another's. Each module
/// declares its codes as static members of an extension constrained to its own domain; a code's name is its
/// ``description``, the text JSON and error messages show. Codes compare by name.
public struct ErrorCode<Domain>: Hashable, Sendable, CustomStringConvertible {
    private let raw: String

    /// Creates the code named `raw`; only the ledger's own modules declare codes.
    package init(_ raw: String) { self.raw = raw }

    /// The code's stable name, e.g. `truncated`.
    public var description: String { raw }
}
