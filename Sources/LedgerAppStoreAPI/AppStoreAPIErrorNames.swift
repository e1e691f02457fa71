/// Apple's names for the App Store Server API's `errorCode` values (Apple's "Error codes" documentation), so a
/// message names the error operators can search for.
public enum AppStoreAPIErrorNames {
    /// The codes Apple marks as retryable ("…RetryableError").
    public static let retryable: Set<Int64> = [4_040_002, 4_040_004, 4_040_006, 5_000_001]

    /// The name for `code`, nil when the client does not know it.
    public static func name(for code: Int64) -> String? { names[code] }

    static let names: [Int64: String] = [
        4_000_000: "GeneralBadRequestError",
        4_000_002: "InvalidAppIdentifierError",
        4_000_005: "InvalidRequestRevisionError",
        4_000_006: "InvalidTransactionIdError",
        4_000_008: "InvalidOriginalTransactionIdError",
        4_000_009: "InvalidExtendByDaysError",
        4_000_010: "InvalidExtendReasonCodeError",
        4_000_011: "InvalidRequestIdentifierError",
        4_000_012: "StartDateTooFarInPastError",
        4_000_013: "StartDateAfterEndDateError",
        4_000_014: "InvalidPaginationTokenError",
        4_000_015: "InvalidStartDateError",
        4_000_016: "InvalidEndDateError",
        4_000_017: "PaginationTokenExpiredError",
        4_000_018: "InvalidNotificationTypeError",
        4_000_019: "MultipleFiltersSuppliedError",
        4_000_020: "InvalidTestNotificationTokenError",
        4_000_021: "InvalidSortError",
        4_000_022: "InvalidProductTypeError",
        4_000_023: "InvalidProductIdError",
        4_000_024: "InvalidSubscriptionGroupIdentifierError",
        4_000_026: "InvalidInAppOwnershipTypeError",
        4_000_027: "InvalidEmptyStorefrontCountryCodeListError",
        4_000_028: "InvalidStorefrontCountryCodeError",
        4_000_030: "InvalidRevokedError",
        4_000_031: "InvalidStatusError",
        4_030_004: "SubscriptionExtensionIneligibleError",
        4_030_005: "SubscriptionMaxExtensionError",
        4_030_007: "FamilySharedSubscriptionExtensionIneligibleError",
        4_040_001: "AccountNotFoundError",
        4_040_002: "AccountNotFoundRetryableError",
        4_040_003: "AppNotFoundError",
        4_040_004: "AppNotFoundRetryableError",
        4_040_005: "OriginalTransactionIdNotFoundError",
        4_040_006: "OriginalTransactionIdNotFoundRetryableError",
        4_040_007: "ServerNotificationUrlNotFoundError",
        4_040_008: "TestNotificationNotFoundError",
        4_040_009: "StatusRequestNotFoundError",
        4_040_010: "TransactionIdNotFoundError",
        4_290_000: "RateLimitExceededError",
        5_000_000: "GeneralInternalError",
        5_000_001: "GeneralInternalRetryableError",
    ]
}
