/// The OpenAPI 3.1 description of `ledger serve`, served at `GET /openapi.yaml`.
///
/// Kept beside the routes (``LedgerAPI/router()``): change both together. Every operation has an `operationId` and
/// a response schema for every status it answers; the errors every route can answer (404, 405, 408, 413, 500, …)
/// are its `default`. `Scripts/openapi-check` validates the document a running server serves (run by `.ci/run`).
public enum OpenAPIDocument {
    /// The YAML text.
    public static let yaml = header + components + "\n" + paths

    /// `openapi`, `info` and `servers`.
    static let header = """
        openapi: 3.1.0
        info:
          title: Visla subscription ledger
          version: "1.0"
          description: >
            The webhook for App Store Server Notifications V2 and the backend's read API. A webhook is answered 200
            only once its record is durable on disk (or was a duplicate). Read endpoints need
            `Authorization: Bearer <read token>` when the server was started with a read token (--read-token-file);
            admin endpoints need the admin token. Errors are {"error":{"status":"…","message":"…"}}.
        servers:
          - url: http://127.0.0.1:8080
            description: >
              Every route on one address (--host, --port). With --webhook-listen and --api-listen, the webhook
              address serves only /webhooks/apple and /healthz, and the API address every other route and /healthz.

        """

    /// `paths:`, one entry per route.
    static let paths = """
        paths:
          /webhooks/apple:
            post:
              operationId: receiveAppleNotification
              summary: App Store Server Notifications V2 endpoint.
              security: []
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
                "200":
                  description: Durable on disk, or a duplicate of a notification already recorded.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [status, seq, duplicate]
                        properties:
                          status: {type: string, const: ok}
                          seq: {type: integer}
                          duplicate: {type: boolean}
                "400": {$ref: "#/components/responses/BadRequest"}
                "413":
                  description: The body is over 1 MiB, or the signed payload over its limit.
                  content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
                "422":
                  description: Verification failed; the error's status names Apple's code (e.g. INVALID_CHAIN).
                  content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/users/{id}/entitlement:
            get:
              operationId: getUserEntitlement
              summary: A user's entitlement at a time.
              security: [{readToken: []}, {}]
              parameters:
                - {$ref: "#/components/parameters/userId"}
                - {$ref: "#/components/parameters/at"}
                - {$ref: "#/components/parameters/knownAt"}
              responses:
                "200": {$ref: "#/components/responses/State"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/accounts/{uuid}/entitlement:
            get:
              operationId: getAccountEntitlement
              summary: An appAccountToken's entitlement at a time.
              security: [{readToken: []}, {}]
              parameters:
                - {$ref: "#/components/parameters/accountToken"}
                - {$ref: "#/components/parameters/at"}
                - {$ref: "#/components/parameters/knownAt"}
              responses:
                "200": {$ref: "#/components/responses/State"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/subscriptions/{originalTransactionId}/entitlement:
            get:
              operationId: getSubscriptionEntitlement
              summary: One subscription's entitlement at a time.
              security: [{readToken: []}, {}]
              parameters:
                - {$ref: "#/components/parameters/originalTransactionId"}
                - {$ref: "#/components/parameters/at"}
                - {$ref: "#/components/parameters/knownAt"}
              responses:
                "200": {$ref: "#/components/responses/State"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/users/{id}/history:
            get:
              operationId: getUserHistory
              summary: Every record about a user, in effective-time order.
              security: [{readToken: []}, {}]
              parameters:
                - {$ref: "#/components/parameters/userId"}
                - {$ref: "#/components/parameters/knownAt"}
                - {$ref: "#/components/parameters/asOf"}
              responses:
                "200": {$ref: "#/components/responses/History"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/accounts/{uuid}/history:
            get:
              operationId: getAccountHistory
              summary: Every record about an appAccountToken, in effective-time order.
              security: [{readToken: []}, {}]
              parameters:
                - {$ref: "#/components/parameters/accountToken"}
                - {$ref: "#/components/parameters/knownAt"}
                - {$ref: "#/components/parameters/asOf"}
              responses:
                "200": {$ref: "#/components/responses/History"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/subscriptions/{originalTransactionId}/history:
            get:
              operationId: getSubscriptionHistory
              summary: Every record about one subscription (and the corrections addressed to its owner).
              security: [{readToken: []}, {}]
              parameters:
                - {$ref: "#/components/parameters/originalTransactionId"}
                - {$ref: "#/components/parameters/knownAt"}
                - {$ref: "#/components/parameters/asOf"}
              responses:
                "200": {$ref: "#/components/responses/History"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/events:
            get:
              operationId: getEvents
              summary: >
                Catch-up feed, gap-free in sequence order; long-polls up to `wait` seconds (at most 32 requests wait
                at once; one more with nothing to return is 503 with Retry-After).
              security: [{readToken: []}, {}]
              parameters:
                - name: after
                  in: query
                  description: A seq at most the head (0 for the start).
                  schema: {type: integer, minimum: 0, default: 0}
                - name: limit
                  in: query
                  schema: {type: integer, minimum: 1, maximum: 1000, default: 100}
                - name: wait
                  in: query
                  description: Seconds to wait for an event after `after`.
                  schema: {type: number, minimum: 0, maximum: 60, default: 0}
              responses:
                "200":
                  description: Events after `after`, and the `next` cursor.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [events, next]
                        properties:
                          events:
                            type: array
                            items: {$ref: "#/components/schemas/HistoryEntry"}
                          next: {type: integer}
                "400":
                  description: >
                    A malformed parameter (BAD_REQUEST), or `after` beyond the head (CURSOR_AHEAD, the message naming
                    the head): a cursor this log never handed out, e.g. one from before a restore.
                  content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/digest:
            get:
              operationId: getDigest
              summary: The head to pin, as `ledger digest` prints it.
              security: [{readToken: []}, {}]
              responses:
                "200":
                  description: The head.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [seq, head, at]
                        properties:
                          seq: {type: integer}
                          head: {type: string, description: "SHA-256 chain hash of the last record, hex"}
                          at: {type: string, format: date-time}
                "401": {$ref: "#/components/responses/Unauthorized"}
                default: {$ref: "#/components/responses/Error"}
          /v1/corrections:
            post:
              operationId: appendCorrection
              summary: Append an operator correction (admin), honoured by the fold from its effective time.
              security: [{adminToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      allOf:
                        - {$ref: "#/components/schemas/OperatorFields"}
                        - type: object
                          required: [subject, action, from]
                          properties:
                            subject:
                              type: object
                              description: Exactly one of userId, accountToken, originalTransactionId.
                              properties:
                                userId: {type: integer, minimum: 0, maximum: 4294967295}
                                accountToken: {type: string, format: uuid}
                                originalTransactionId: {type: string, minLength: 1, maxLength: 64}
                            action: {type: string, enum: [grant, revoke]}
                            productId: {type: string, description: "grant only: a product of the catalog"}
                            from: {$ref: "#/components/schemas/Time"}
                            until: {$ref: "#/components/schemas/Time", description: "grant only: after from"}
              responses:
                "200": {$ref: "#/components/responses/Appended"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/AdminOff"}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/links:
            post:
              operationId: appendLink
              summary: Append a link attaching a subscription to a user or account (admin).
              security: [{adminToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      allOf:
                        - {$ref: "#/components/schemas/OperatorFields"}
                        - type: object
                          required: [originalTransactionId]
                          description: One of userId or accountToken names the owner.
                          properties:
                            originalTransactionId: {type: string, minLength: 1, maxLength: 64}
                            userId: {type: integer, minimum: 0, maximum: 4294967295}
                            accountToken: {type: string, format: uuid}
                            reassign:
                              type: boolean
                              default: false
                              description: Move a subscription another owner holds by a link (409 without it).
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
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/AdminOff"}
                "404":
                  description: No record names this originalTransactionId.
                  content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
                "409":
                  description: Another owner holds the subscription by a link, and reassign is not true.
                  content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /v1/voids:
            post:
              operationId: appendVoid
              summary: Append a void, a compensating record that cancels the record `seq` (admin).
              security: [{adminToken: []}]
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      allOf:
                        - {$ref: "#/components/schemas/OperatorFields"}
                        - type: object
                          required: [seq]
                          properties:
                            seq: {type: integer, minimum: 1}
              responses:
                "200": {$ref: "#/components/responses/Appended"}
                "400": {$ref: "#/components/responses/BadRequest"}
                "401": {$ref: "#/components/responses/Unauthorized"}
                "403": {$ref: "#/components/responses/AdminOff"}
                "404":
                  description: No record has this seq.
                  content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
                "409":
                  description: The record is itself a void.
                  content: {application/json: {schema: {$ref: "#/components/schemas/Error"}}}
                "503": {$ref: "#/components/responses/Unavailable"}
                default: {$ref: "#/components/responses/Error"}
          /healthz:
            get:
              operationId: getHealth
              summary: Liveness and the head's seq; no token.
              security: []
              responses:
                "200":
                  description: Serving.
                  content:
                    application/json:
                      schema:
                        type: object
                        required: [status, head]
                        properties:
                          status: {type: string, enum: [ok, degraded]}
                          head: {type: integer}
                          log:
                            description: While webhook appends fail (a full or failing disk), until one succeeds.
                            type: object
                            properties:
                              writable: {type: boolean}
                              error: {type: string}
                          reconcile:
                            description: With serve --reconcile-every; degraded once pulls fail too long.
                            type: object
                            properties:
                              lastSuccess: {type: [integer, "null"]}
                              failingSince: {type: [integer, "null"]}
                              lastError: {type: string}
                default: {$ref: "#/components/responses/Error"}
          /metrics:
            get:
              operationId: getMetrics
              summary: Ledger and HTTP metrics.
              security: [{readToken: []}, {}]
              responses:
                "200":
                  description: Prometheus text format 0.0.4.
                  content:
                    text/plain:
                      schema: {type: string}
                "401": {$ref: "#/components/responses/Unauthorized"}
                default: {$ref: "#/components/responses/Error"}
          /openapi.yaml:
            get:
              operationId: getOpenAPIDocument
              summary: This document; no token.
              security: []
              responses:
                "200":
                  description: OpenAPI 3.1 YAML.
                  content:
                    application/yaml:
                      schema: {type: string}
                default: {$ref: "#/components/responses/Error"}
        """
}
