// The LedgerAppStore module; see Package.swift for its concern.
