import { AppError } from "../lib/errors";

/** Client API success envelope. */
export const ok = <T>(data: T) => ({ success: true as const, data });

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
