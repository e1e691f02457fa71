extension OpenAPIDocument {
    /// `components:`: the security schemes, parameters, responses and schemas the paths refer to.
    static let components = """
        components:
          securitySchemes:
            readToken:
              type: http
              scheme: bearer
              description: The read token (--read-token-file), when the server was started with one.
            adminToken:
              type: http
              scheme: bearer
              description: The admin token (--admin-token-file); without one the admin endpoints answer 403.
          parameters:
            userId:
              name: id
              in: path
              required: true
              description: A user id, in decimal digits without a sign or leading zero.
              schema: {type: integer, minimum: 0, maximum: 4294967295}
            accountToken:
              name: uuid
              in: path
              required: true
              description: An appAccountToken.
              schema: {type: string, format: uuid}
            originalTransactionId:
              name: originalTransactionId
              in: path
              required: true
              description: Apple's originalTransactionId, 1 to 64 decimal digits.
              schema: {type: string, pattern: "^[0-9]{1,64}$"}
            at:
              name: at
              in: query
              description: Valid time, ISO 8601 UTC or milliseconds since the epoch (default now).
              schema: {type: string}
            knownAt:
              name: knownAt
              in: query
              description: Only records appended at or before this time count (default all).
              schema: {type: string}
            asOf:
              name: asOf
              in: query
              description: Only records effective at or before this time (default all).
              schema: {type: string}
          headers:
            RetryAfter:
              description: Seconds to wait before retrying.
              schema: {type: integer}
            WWWAuthenticate:
              description: The bearer challenge, naming the realm (ledger-read or ledger-admin).
              schema: {type: string}
          responses:
            State:
              description: The entitlement, as `ledger state --json` prints it.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Entitlement"}
            History:
              description: The records, as `ledger history --json` prints them.
              content:
                application/json:
                  schema:
                    type: array
                    items: {$ref: "#/components/schemas/HistoryEntry"}
            Appended:
              description: Appended, or appended before (the same request is idempotent).
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Appended"}
            BadRequest:
              description: >
                A malformed request: a bad id, time, number or body, a query parameter given more than once, or more
                than one Authorization header.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            Unauthorized:
              description: A missing or wrong bearer token.
              headers:
                WWW-Authenticate: {$ref: "#/components/headers/WWWAuthenticate"}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            AdminOff:
              description: The server was started without an admin token.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            Unavailable:
              description: Storage is unavailable, or the server is at its connection limit or shutting down.
              headers:
                Retry-After: {$ref: "#/components/headers/RetryAfter"}
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
            Error:
              description: >
                Any other error the server answers every route with: 404 unknown path, 405 another method (with
                Allow), 408 too slow, 411/413/414/417/431 refused framing or size, 500, 501, 505.
              content:
                application/json:
                  schema: {$ref: "#/components/schemas/Error"}
          schemas:
            Time:
              description: ISO 8601 UTC or milliseconds since the epoch.
              oneOf:
                - {type: string}
                - {type: integer}
            Appended:
              type: object
              required: [appended, seq]
              properties:
                appended: {type: boolean, description: "false: the same request was appended before (idempotent)"}
                seq: {type: integer}
            Error:
              type: object
              required: [error]
              properties:
                error:
                  type: object
                  required: [status, message]
                  properties:
                    status:
                      type: string
                      description: >
                        A stable code: BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, CURSOR_AHEAD,
                        UNAVAILABLE, … or, for a webhook that failed verification, Apple's status name.
                    message: {type: string, description: "What happened, and what to do."}
            Subscription:
              type: object
              properties:
                originalTransactionId: {type: string}
                productId: {type: string}
                productKnown: {type: boolean}
                devices: {type: integer}
                period: {type: [string, "null"]}
                status: {type: string, enum: [active, gracePeriod, billingRetry, expired, refunded, revoked]}
                since: {type: [string, "null"], format: date-time}
                expiresAt: {type: [string, "null"], format: date-time}
                gracePeriodExpiresAt: {type: [string, "null"], format: date-time}
                autoRenew: {type: [boolean, "null"]}
                pendingProductId: {type: [string, "null"]}
                lastSeq: {type: integer}
            Entitlement:
              type: object
              required: [at, entitled, deviceLimit, status, subscriptions]
              properties:
                userId: {type: [integer, "null"]}
                appAccountToken: {type: [string, "null"]}
                at: {type: string, format: date-time}
                knownAt: {type: [string, "null"], format: date-time}
                entitled: {type: boolean}
                deviceLimit: {type: integer}
                status: {type: string, enum: [active, gracePeriod, billingRetry, expired, refunded, revoked, none]}
                subscriptions:
                  type: array
                  items: {$ref: "#/components/schemas/Subscription"}
            HistoryEntry:
              type: object
              required: [seq, recordedAt, effectiveAt, kind]
              properties:
                seq: {type: integer}
                recordedAt: {type: string, format: date-time}
                effectiveAt: {type: string, format: date-time}
                kind: {type: string}
                notificationType: {type: [string, "null"]}
                subtype: {type: [string, "null"]}
                notificationUUID: {type: [string, "null"]}
                originalTransactionId: {type: [string, "null"]}
                transactionId: {type: [string, "null"]}
                productId: {type: [string, "null"]}
                source: {type: string}
                environment: {type: string}
                evidence: {type: [string, "null"], description: "SHA-256 of the signed original, hex"}
                record: {type: object, description: The whole normalised record.}
            OperatorFields:
              type: object
              required: [reason, operator]
              properties:
                reason: {type: string, minLength: 1, maxLength: 2000}
                operator: {type: string, minLength: 1, maxLength: 200}
        """
}
