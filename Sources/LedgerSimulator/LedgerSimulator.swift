// The LedgerSimulator module; see Package.swift for its concern.
