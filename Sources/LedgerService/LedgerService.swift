// The LedgerService module; see Package.swift for its concern.
