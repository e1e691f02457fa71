// The LedgerTesting module; see Package.swift for its concern.
