// The LedgerHTTP module; see Package.swift for its concern.
