import { describeEngineError, isEngineUnreachable } from "../db/errors";
import { AppError, serviceUnavailable } from "../lib/errors";
import type { Logger } from "../lib/log";
import { schemaFieldErrors } from "./schema-errors";

/**
 * Turns anything thrown inside a Client API handler into an AppError: our own errors
 * pass through, Elysia's schema errors become 422 VALIDATION_ERROR with fieldErrors,
 * unparsable bodies 400, unknown routes 404, an unreachable engine (database, Redis, bucket)
 * 503 SERVICE_UNAVAILABLE with Retry-After, and anything else a 500 that leaks nothing.
 */
export function toAppError(code: string | number, error: unknown, log: Logger, path: string): AppError {
  if (error instanceof AppError) return error;
  switch (code) {
    case "VALIDATION":
      return new AppError(422, "VALIDATION_ERROR", "Invalid request", { fieldErrors: schemaFieldErrors(error) });
    case "PARSE":
      return new AppError(400, "VALIDATION_ERROR", "Request body is not valid JSON or form data", {
        fieldErrors: { body: ["could not be parsed"] },
      });
    case "NOT_FOUND":
      return new AppError(404, "NOT_FOUND", "Not found");
    case "INVALID_COOKIE_SIGNATURE":
      return new AppError(401, "UNAUTHORIZED", "Unauthorized");
  }
  const status = (error as { status?: unknown })?.status;
  if (status === 413)
    return new AppError(413, "VALIDATION_ERROR", "Request body is too large", {
      fieldErrors: { body: ["is too large"] },
    });
  if (isEngineUnreachable(error)) {
    log.warn("engine unreachable; answered 503", { path, error: describeEngineError(error) });
    return serviceUnavailable(error);
  }
  log.error("unhandled error", {
    path,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  return new AppError(500, "INTERNAL_ERROR", "Internal server error");
}
