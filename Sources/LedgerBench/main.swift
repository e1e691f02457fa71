print("ledger-bench: not built yet")
