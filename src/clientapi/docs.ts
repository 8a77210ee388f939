import { t, type DocumentDecoration, type TSchema } from "elysia";

// the building blocks of response schemas, shared with the web app
export { NullableString, NullableTime, Open, PageInfo, Resource, Time } from "../contract/schema";

/*
 * What each Client API route tells /api/openapi.json beside its request schemas: a summary, the
 * shape of `data` in its success envelope, and the error codes particular to it. The codes every
 * route of a kind can return (a session, CSRF, schema, rate limit) are added by src/clientapi/openapi.ts
 * from the route itself, so a route names only its own.
 */

/** Every Client API error code and its HTTP status (service-api.md's table plus this instance's own). */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  CAPTCHA_REQUIRED: 400,
  CAPTCHA_FAILED: 400,
  INVITE_REQUIRED: 400,
  INVITE_INVALID: 400,
  INVITE_EXPIRED: 400,
  INVITE_USED_UP: 400,
  INSUFFICIENT_BALANCE: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  TWO_FACTOR_REQUIRED: 401,
  TWO_FACTOR_EMAIL_REQUIRED: 401,
  TWO_FACTOR_TELEGRAM_REQUIRED: 401,
  TWO_FACTOR_INVALID_CODE: 401,
  CSRF_TOKEN_INVALID: 403,
  FORBIDDEN: 403,
  PERMISSION_DENIED: 403,
  EMAIL_NOT_VERIFIED: 403,
  ACCOUNT_DISABLED: 403,
  DEVICE_BANNED: 403,
  POSTING_TEMPORARILY_BLOCKED: 403,
  BOT_DISABLED: 403,
  BOT_BLOCKED: 403,
  NOT_FOUND: 404,
  ALREADY_VOTED: 409,
  POLL_CLOSED: 409,
  POLL_SUPERSEDED: 409,
  PAYMENT_IN_PROGRESS: 409,
  INVOICE_ALREADY_PAID: 409,
  MAINTENANCE_RUNNING: 409,
  REPORT_RESOLVED: 409,
  CONTENT_REJECTED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The extension field of an operation that lists the error codes particular to its route. */
export const ROUTE_ERRORS_KEY = "x-route-errors";

interface RouteDoc {
  /** `data` of the success envelope */
  data?: TSchema;
  /** error codes particular to this route (the generic ones are derived from the route) */
  errors?: ErrorCode[];
  description?: string;
  /** a response that is not the JSON envelope (an event stream, a download) */
  content?: Record<string, { schema: TSchema | Record<string, unknown> }>;
  /** a request body the route reads itself (multipart uploads) instead of through a schema */
  requestBody?: { content: Record<string, { schema: TSchema | Record<string, unknown> }>; required?: boolean };
}

/**
 * The OpenAPI `detail` of a route: its summary, the schema of `data` in its success envelope and
 * its own error codes. The generic errors and the envelope around `data` are added by the
 * document builder (src/clientapi/openapi.ts).
 */
export function doc(summary: string, opts: RouteDoc = {}) {
  const success = opts.content
    ? { description: "OK", content: opts.content }
    : {
        description: "OK",
        content: {
          "application/json": {
            schema: t.Object({
              success: t.Literal(true),
              data: opts.data ?? t.Object({}, { additionalProperties: true }),
            }),
          },
        },
      };
  return {
    summary,
    ...(opts.description ? { description: opts.description } : {}),
    ...(opts.requestBody ? { requestBody: opts.requestBody } : {}),
    responses: { 200: success },
    [ROUTE_ERRORS_KEY]: opts.errors ?? [],
  } as unknown as DocumentDecoration;
}
