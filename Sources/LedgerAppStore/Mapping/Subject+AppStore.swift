import LedgerCore

extension Subject {
    /// Who a transaction and its renewal info are about.
    ///
    /// The subscription is its original transaction id (the transaction's, else the renewal's). The
    /// account is the transaction's `appAccountToken`, else the renewal's; a token that follows the
    /// Visla scheme (`%08x` of the user id + `-0000-0000-0000-000000000000`) also names the user,
    /// any other token names an account only, and without a token the subscription is an orphan
    /// known by its original transaction id until an operator links it.
    public init(transaction: TransactionPayload?, renewal: RenewalInfoPayload?) {
        self.init(
            originalTransactionId: transaction?.originalTransactionId ?? renewal?.originalTransactionId,
            appAccountToken: transaction?.appAccountToken ?? renewal?.appAccountToken)
    }
}
