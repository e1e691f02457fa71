import LedgerErrors

/// Why a simulation could not be configured, signed or written.
///
/// Equality is on the code only, so new codes never break callers.
public struct SimulationError: PlainLedgerError {
    /// A stable, opaque classification.
    public typealias Code = ErrorCode<SimulationError>

    /// The code, message, cause and origin of the error.
    public var detail: ErrorDetail<Code>

    /// Creates an error from its detail.
    public init(detail: ErrorDetail<Code>) { self.detail = detail }

    /// The message, with the cause when there is one.
    public var description: String {
        cause.map { "\(message) (\($0))" } ?? message
    }
}

extension ErrorCode where Domain == SimulationError {
    /// A configuration value is out of range or malformed.
    public static var invalidConfiguration: Self { Self("invalidConfiguration") }
    /// The test PKI or a signature could not be made.
    public static var signing: Self { Self("signing") }
    /// An output file could not be written.
    public static var io: Self { Self("io") }
}
