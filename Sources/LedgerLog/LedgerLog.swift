// The LedgerLog module; see Package.swift for its concern.
