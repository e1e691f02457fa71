// The LedgerJSON module; see Package.swift for its concern.
