// The LedgerCLI module; see Package.swift for its concern.
