import LedgerCLI
