import type { AppError, FieldErrors } from "../lib/errors";
import { errorWordingFor, type ErrorWording } from "../locales/error-wording";
import { acceptedLanguages, DEFAULT_LANGUAGE, pickLanguage, type Language } from "../locales/languages";

/** Client API success envelope. */
export const ok = <T>(data: T) => ({ success: true as const, data });

/** What a route's answer gets its headers set on. */
export type SetHeaders = { headers: Record<string, unknown> };

/**
 * BODY, a whole answer's JSON written by hand (kept or assembled from kept texts), as the answer:
 * SET gets the JSON content type, so Elysia sends it as it is, byte for byte what ok() of its
 * object would have sent.
 */
export function jsonText<T extends string | Uint8Array>(set: SetHeaders, body: T): T;
export function jsonText<T extends string | Uint8Array>(set: SetHeaders, body: T | Promise<T>): T | Promise<T>;
export function jsonText<T extends string | Uint8Array>(set: SetHeaders, body: T | Promise<T>): T | Promise<T> {
  set.headers["content-type"] = "application/json;charset=utf-8";
  return body;
}

export interface ClientErrorBody {
  success: false;
  error: { code: string; message: string; details: unknown };
}

/** The language REQUEST's Accept-Language asks for, of those the server words its texts in. */
export const requestLanguage = (request: Request | undefined): Language =>
  pickLanguage(acceptedLanguages(request?.headers.get("accept-language"))) ?? DEFAULT_LANGUAGE;

/**
 * ERR in the Client API's error envelope, its message and field messages worded in the
 * request's language (English, as raised, when it asks for no other or the catalog lacks a text).
 * A language other than English may first need its catalog loaded: then the body comes later.
 */
export function clientErrorBody(err: AppError, request?: Request): ClientErrorBody | Promise<ClientErrorBody> {
  const body: ClientErrorBody = {
    success: false,
    error: { code: err.code, message: err.message, details: err.details ?? [] },
  };
  const wording = errorWordingFor(requestLanguage(request));
  return wording ? wording.then((word) => wordedBody(body, word)) : body;
}

function wordedBody(body: ClientErrorBody, word: ErrorWording): ClientErrorBody {
  const details = body.error.details as { fieldErrors?: FieldErrors } | undefined;
  const fieldErrors = details?.fieldErrors;
  let message = word(body.error.message);
  // a field's error raised alone reads "field: what is wrong" (lib/errors.ts fieldError)
  const named = message === undefined && /^([\w.[\]-]+): (.+)$/s.exec(body.error.message);
  if (named && fieldErrors?.[named[1]!]) message = `${named[1]}: ${word(named[2]!) ?? named[2]}`;
  if (!fieldErrors) return { ...body, error: { ...body.error, message: message ?? body.error.message } };
  const worded: FieldErrors = {};
  for (const [field, messages] of Object.entries(fieldErrors)) worded[field] = messages.map((m) => word(m) ?? m);
  return {
    ...body,
    error: { ...body.error, message: message ?? body.error.message, details: { ...details, fieldErrors: worded } },
  };
}

/** A Response in the Client API error envelope (worded for REQUEST), with Retry-After for 429. */
export function clientErrorResponse(err: AppError, request?: Request): Response | Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json; charset=utf-8" };
  if (err.retryAfter !== undefined) headers["retry-after"] = String(err.retryAfter);
  const respond = (body: ClientErrorBody) => new Response(JSON.stringify(body), { status: err.status, headers });
  const body = clientErrorBody(err, request);
  return body instanceof Promise ? body.then(respond) : respond(body);
}
