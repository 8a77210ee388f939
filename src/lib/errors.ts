/**
 * The one error type of the service. Each surface maps it to its own envelope:
 * the Client API to `{success:false,error:{code,message,details}}`, the Bot API to
 * `{ok:false,error_code,description}`. `cause` is logged, never sent.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown = [],
    options?: { cause?: unknown; retryAfter?: number },
  ) {
    super(message, options?.cause ? { cause: options.cause } : undefined);
    this.retryAfter = options?.retryAfter;
  }
  readonly retryAfter?: number;
}

export type FieldErrors = Record<string, string[]>;

/** 400 VALIDATION_ERROR naming the offending fields. */
export function validationError(fieldErrors: FieldErrors, message = "Invalid request"): AppError {
  return new AppError(400, "VALIDATION_ERROR", message, { fieldErrors });
}

export function fieldError(field: string, message: string): AppError {
  return validationError({ [field]: [message] }, `${field}: ${message}`);
}

export const notFound = (what = "Not found") => new AppError(404, "NOT_FOUND", what);
export const forbidden = (message = "Forbidden") => new AppError(403, "FORBIDDEN", message);
export const unauthorized = (message = "Unauthorized") => new AppError(401, "UNAUTHORIZED", message);
export const rateLimited = (retryAfter: number) =>
  new AppError(429, "RATE_LIMITED", "Too many requests", [], { retryAfter });

/** Seconds a client is asked to wait after a 503 (an engine came back by then, or it asks again). */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** 503 SERVICE_UNAVAILABLE with Retry-After: an engine the request needs (database, Redis, bucket) is unreachable for now. */
export const serviceUnavailable = (cause?: unknown) =>
  new AppError(503, "SERVICE_UNAVAILABLE", "Service temporarily unavailable; retry later", [], {
    cause,
    retryAfter: UNAVAILABLE_RETRY_AFTER_SECONDS,
  });
