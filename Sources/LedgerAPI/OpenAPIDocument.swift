/// The OpenAPI 3.1 description of `ledger serve`, served at `GET /openapi.yaml`.
///
/// Kept beside the routes (``LedgerRoutes``): change both together.
public enum OpenAPIDocument {
    /// The YAML text.
    public static let yaml = """
        openapi: 3.1.0
        info:
          title: Visla subscription ledger
          version: "1.0"
          description: >
            The webhook for App Store Server Notifications V2 and the backend's read API. A webhook is answered 200
            only once its record is durable on disk (or was a duplicate). Read endpoints need
            `Authorization: Bearer <read token>` when the server was started with --read-token.
        servers:
          - url: http://127.0.0.1:8080
        components:
          securitySchemes:
            bearer:
              type: http
              scheme: bearer
          parameters:
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
          responses:
            State:
              description: The state.
              content: {application/json: {schema: {$ref: "#/components/schemas/Entitlement"}}}
            History:
              description: The history.
              content: {application/json: {schema: {type: array, items: {$ref: "#/components/schemas/HistoryEntry"}}}}
            BadBody:
              description: Bad body.
              content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
            NoAdminToken:
              description: Missing or wrong admin token.
            AdminOff:
              description: The server was started without --admin-token.
          schemas:
            Time:
              description: ISO 8601 UTC or milliseconds since the epoch.
              oneOf: [{type: string, format: date-time}, {type: integer}]
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
                    status: {type: string, description: "Apple's verification status name or an HTTP error code"}
                    message: {type: string}
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
        paths:
          /webhooks/apple:
            post:
              summary: App Store Server Notifications V2 endpoint.
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [signedPayload]
                      properties:
                        signedPayload: {type: string}
              responses:
                "200": {description: Durable on disk, or a duplicate.}
                "400": {description: Unreadable body., content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}}
                "413": {description: Body over 1 MiB., content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}}
                "422": {description: Verification failed; the status names Apple's code., content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}}
                "503": {description: The log cannot be written; Apple retries., content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}}
          /v1/users/{id}/entitlement:
            get:
              summary: A user's entitlement.
              security: [{bearer: []}]
              parameters:
                - {name: id, in: path, required: true, schema: {type: integer}}
                - {$ref: "#/components/parameters/at"}
                - {$ref: "#/components/parameters/knownAt"}
              responses:
                "200": {$ref: "#/components/responses/State"}
                "400": {description: Bad parameter.}
                "401": {description: Missing or wrong token.}
          /v1/accounts/{uuid}/entitlement:
            get:
              summary: An appAccountToken's entitlement.
              security: [{bearer: []}]
              parameters:
                - {name: uuid, in: path, required: true, schema: {type: string, format: uuid}}
                - {$ref: "#/components/parameters/at"}
                - {$ref: "#/components/parameters/knownAt"}
              responses:
                "200": {$ref: "#/components/responses/State"}
          /v1/subscriptions/{originalTransactionId}/entitlement:
            get:
              summary: One subscription's entitlement.
              security: [{bearer: []}]
              parameters:
                - {name: originalTransactionId, in: path, required: true, schema: {type: string}}
                - {$ref: "#/components/parameters/at"}
                - {$ref: "#/components/parameters/knownAt"}
              responses:
                "200": {$ref: "#/components/responses/State"}
          /v1/users/{id}/history:
            get:
              summary: Every record about a user, in effective-time order.
              security: [{bearer: []}]
              parameters:
                - {name: id, in: path, required: true, schema: {type: integer}}
                - {$ref: "#/components/parameters/knownAt"}
                - {$ref: "#/components/parameters/asOf"}
              responses:
                "200": {$ref: "#/components/responses/History"}
          /v1/accounts/{uuid}/history:
            get:
              summary: Every record about an appAccountToken, in effective-time order.
              security: [{bearer: []}]
              parameters:
                - {name: uuid, in: path, required: true, schema: {type: string, format: uuid}}
                - {$ref: "#/components/parameters/knownAt"}
                - {$ref: "#/components/parameters/asOf"}
              responses:
                "200": {$ref: "#/components/responses/History"}
          /v1/subscriptions/{originalTransactionId}/history:
            get:
              summary: Every record about one subscription (and the corrections addressed to its owner).
              security: [{bearer: []}]
              parameters:
                - {name: originalTransactionId, in: path, required: true, schema: {type: string}}
                - {$ref: "#/components/parameters/knownAt"}
                - {$ref: "#/components/parameters/asOf"}
              responses:
                "200": {$ref: "#/components/responses/History"}
          /v1/events:
            get:
              summary: Catch-up feed, gap-free in sequence order; long-polls up to `wait` seconds (at most 64 at once; more answer at once).
              security: [{bearer: []}]
              parameters:
                - {name: after, in: query, description: "A seq at most the head (0 for the start).", schema: {type: integer, default: 0}}
                - {name: limit, in: query, schema: {type: integer, default: 100, maximum: 1000}}
                - {name: wait, in: query, schema: {type: number, default: 0, maximum: 60}}
              responses:
                "200":
                  description: Events after `after`, and the `next` cursor.
                  content:
                    application/json:
                      schema:
                        type: object
                        properties:
                          events: {type: array, items: {type: object}}
                          next: {type: integer}
                "400":
                  description: >
                    A malformed parameter (BAD_REQUEST), or `after` beyond the head (CURSOR_AHEAD, the message naming
                    the head): a cursor this log never handed out, e.g. one from before a restore.
                  content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
          /v1/digest:
            get:
              summary: The head to pin, as `ledger digest` prints it.
              security: [{bearer: []}]
              responses:
                "200":
                  description: The head.
                  content:
                    application/json:
                      schema:
                        type: object
                        properties:
                          seq: {type: integer}
                          head: {type: string, description: SHA-256 chain hash of the last record, hex}
                          at: {type: string, format: date-time}
          /v1/corrections:
            post:
              summary: Append an operator correction (admin token), honoured by the fold from its effective time.
              security: [{bearer: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [subject, action, from, reason, operator]
                      properties:
                        subject:
                          type: object
                          description: Exactly one of userId, accountToken, originalTransactionId.
                          properties:
                            userId: {type: integer}
                            accountToken: {type: string, format: uuid}
                            originalTransactionId: {type: string, maxLength: 64}
                        action: {type: string, enum: [grant, revoke]}
                        productId: {type: string, description: "grant only: a product of the catalog"}
                        from: {$ref: "#/components/schemas/Time"}
                        until: {$ref: "#/components/schemas/Time", description: "grant only: after from"}
                        reason: {type: string, maxLength: 2000}
                        operator: {type: string, maxLength: 200}
              responses:
                "200": {description: Appended (or appended before)., content: {application/json: {schema: {$ref: "#/components/schemas/Appended"}}}}
                "400": {$ref: "#/components/responses/BadBody"}
                "401": {$ref: "#/components/responses/NoAdminToken"}
                "403": {$ref: "#/components/responses/AdminOff"}
          /v1/links:
            post:
              summary: Append a link attaching an orphan subscription to a user or account (admin token).
              security: [{bearer: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [originalTransactionId, reason, operator]
                      description: One of userId or accountToken names the owner.
                      properties:
                        originalTransactionId: {type: string, maxLength: 64}
                        userId: {type: integer}
                        accountToken: {type: string, format: uuid}
                        reason: {type: string, maxLength: 2000}
                        operator: {type: string, maxLength: 200}
              responses:
                "200":
                  description: >
                    Appended (or appended before), with who owns the subscription now: the appAccountToken on its
                    transactions decides over links, so `linked` is false when the link changes nothing.
                  content:
                    application/json:
                      schema:
                        allOf:
                          - {$ref: "#/components/schemas/Appended"}
                          - type: object
                            properties:
                              owner:
                                type: object
                                properties:
                                  userId: {type: [integer, "null"]}
                                  appAccountToken: {type: [string, "null"]}
                              linked: {type: boolean}
                "400": {$ref: "#/components/responses/BadBody"}
                "401": {$ref: "#/components/responses/NoAdminToken"}
                "403": {$ref: "#/components/responses/AdminOff"}
          /healthz:
            get:
              summary: Liveness and head sequence.
              responses:
                "200": {description: '{"status":"ok","head":SEQ}'}
          /metrics:
            get:
              summary: Prometheus text format.
              responses:
                "200": {description: Metrics.}
          /openapi.yaml:
            get:
              summary: This document.
              responses:
                "200": {description: OpenAPI 3.1 YAML.}
        """
}
