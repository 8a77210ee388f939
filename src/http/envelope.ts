import { AppError } from "../lib/errors";

/** Client API success envelope. */
export const ok = <T>(data: T) => ({ success: true as const, data });

/** What a route's answer gets its headers set on. */
export type SetHeaders = { headers: Record<string, unknown> };

/**
 * BODY, a whole answer's JSON written by hand (kept or assembled from kept texts), as the answer:
 * SET gets the JSON content type, so Elysia sends it as it is, byte for byte what ok() of its
 * object would have sent.
 */
export function jsonText<T extends string | Uint8Array>(set: SetHeaders, body: T): T {
  set.headers["content-type"] = "application/json;charset=utf-8";
  return body;
}

export interface ClientErrorBody {
  success: false;
  error: { code: string; message: string; details: unknown };
}

export function clientErrorBody(err: AppError): ClientErrorBody {
  return { success: false, error: { code: err.code, message: err.message, details: err.details ?? [] } };
}

/** A Response in the Client API error envelope, with Retry-After for 429. */
export function clientErrorResponse(err: AppError, headers: Record<string, string> = {}): Response {
  const h: Record<string, string> = { "content-type": "application/json; charset=utf-8", ...headers };
  if (err.retryAfter !== undefined) h["retry-after"] = String(err.retryAfter);
  return new Response(JSON.stringify(clientErrorBody(err)), { status: err.status, headers: h });
}
