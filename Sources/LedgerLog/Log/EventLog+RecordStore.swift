import LedgerStore

/// The file log is the embedded store: the contract and every capability.
extension EventLog: RecordStore, EvidenceStorage, DerivedFiles, RebuildableIndexes, HeadWaiting, RecordViews,
    StoreMaintenance
{
    public var binding: StoreBinding { StoreBinding(environment: environment, app: appIdentity) }
    public var opening: StoreOpening {
        StoreOpening(path: path, isWriter: isWriter, recovery: recovery, evidenceRecovery: evidenceRecovery)
    }
}
