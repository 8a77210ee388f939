/**
 * The one client of the Client API. Every call goes through `request`: JSON in and out,
 * the CSRF token on writes, the envelope unwrapped into the data or an ApiError.
 * Session renewal needs nothing here: the server renews expired access cookies on any
 * request, so a 401 means the session is really over (and the app shows sign-in).
 */
import type { InstanceInfo, Upload } from "./types";

import { formatWait } from "./format";
import { language, t } from "./i18n";

export type FieldErrors = Record<string, string[]>;

/** A failed call, as the envelope describes it (code NETWORK_ERROR when the server was not reached). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: FieldErrors = {},
    /** seconds, from Retry-After on 429 */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
  /** the first error of FIELD, if the server named that field */
  field(name: string): string | undefined {
    return this.fieldErrors[name]?.[0];
  }
}

export type Query = Record<string, string | number | boolean | null | undefined>;

interface Envelope<T> {
  success: boolean;
  data?: T;
  error?: { code: string; message: string; details?: unknown };
}

let csrfToken: string | null = null;
let unauthorizedHandler: (() => void) | null = null;

/** Called when a signed-in call answers UNAUTHORIZED (the session ended elsewhere or expired). */
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler;
}

function readCsrfCookie(): string | null {
  const m = document.cookie.match(/(?:^|;\s*)csrf_token=([^;]+)/);
  return m ? decodeURIComponent(m[1]!) : null;
}

/** Fetches a fresh CSRF token (and the instance's registration mode). */
async function fetchCsrf(): Promise<InstanceInfo> {
  const info = await request<InstanceInfo>("GET", "/auth/csrf");
  csrfToken = info.csrfToken;
  return info;
}

/** Keeps TOKEN, a CSRF token an answer carried (GET /api/start), for the next writes. */
export function keepCsrfToken(token: string): void {
  csrfToken = token;
}

async function ensureCsrf(): Promise<string> {
  csrfToken ??= readCsrfCookie();
  if (!csrfToken) await fetchCsrf();
  return csrfToken!;
}

export function apiUrl(path: string, query?: Query): string {
  const url = new URL(`/api${path}`, location.origin);
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, String(v));
  return url.pathname + url.search;
}

function errorFrom(status: number, body: Envelope<unknown> | null, retryAfterHeader: string | null): ApiError {
  const err = body?.error;
  const details = err?.details as { fieldErrors?: FieldErrors } | undefined;
  const retryAfter =
    retryAfterHeader !== null && Number.isFinite(Number(retryAfterHeader)) ? Number(retryAfterHeader) : null;
  return new ApiError(
    status,
    err?.code ?? "INTERNAL_ERROR",
    err?.message ?? t("errors.status", { status }),
    details?.fieldErrors ?? {},
    retryAfter,
  );
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * A read refused for its rate is asked again after the server's Retry-After, a few times, so a
 * burst of reloads slows the screen down instead of replacing it with an error. Writes are not
 * repeated: the person decides whether to send again.
 */
const RATE_LIMIT_RETRIES = 3;
const LONGEST_RATE_LIMIT_WAIT_S = 10;

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new DOMException("Aborted", "AbortError"));
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new DOMException("Aborted", "AbortError"));
      },
      { once: true },
    );
  });
}

async function request<T>(
  method: string,
  path: string,
  opts: { body?: unknown; query?: Query; signal?: AbortSignal } = {},
  retried = false,
  rateLimitRetries = RATE_LIMIT_RETRIES,
): Promise<T> {
  // the server words its errors in the language the app shows, which may not be the browser's
  const headers: Record<string, string> = { accept: "application/json", "accept-language": language.value };
  if (MUTATING.has(method)) headers["x-csrf-token"] = await ensureCsrf();
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(apiUrl(path, opts.query), {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: opts.signal,
      credentials: "same-origin",
    });
  } catch (err) {
    if ((err as Error).name === "AbortError") throw err;
    throw new ApiError(0, "NETWORK_ERROR", t("errors.network"));
  }
  const body = (await res.json().catch(() => null)) as Envelope<T> | null;
  if (body?.success) return body.data as T;
  const error = errorFrom(res.status, body, res.headers.get("retry-after"));
  // the token cookie can vanish (cleared cookies, another tab signed out): fetch a new one, once
  if (error.code === "CSRF_TOKEN_INVALID" && !retried) {
    csrfToken = null;
    await fetchCsrf();
    return request(method, path, opts, true, rateLimitRetries);
  }
  if (error.code === "RATE_LIMITED" && method === "GET" && rateLimitRetries > 0) {
    const wait = error.retryAfter ?? 1;
    if (wait <= LONGEST_RATE_LIMIT_WAIT_S) {
      // a little spread, so the screen's parallel reads do not all come back in the same second
      await pause(wait * 1000 + Math.random() * 250, opts.signal);
      return request(method, path, opts, retried, rateLimitRetries - 1);
    }
  }
  if (error.code === "UNAUTHORIZED" && path !== "/auth/me") unauthorizedHandler?.();
  throw error;
}

export const api = {
  get: <T>(path: string, query?: Query, signal?: AbortSignal) => request<T>("GET", path, { query, signal }),
  post: <T>(path: string, body: unknown = {}) => request<T>("POST", path, { body }),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, { body }),
  put: <T>(path: string, body: unknown) => request<T>("PUT", path, { body }),
  delete: <T>(path: string, body?: unknown, query?: Query) => request<T>("DELETE", path, { body, query }),
};

/**
 * Uploads FILE as KIND, reporting progress (0..1). XMLHttpRequest because fetch does not
 * report upload progress.
 */
export async function uploadFile(
  file: Blob,
  kind: string,
  onProgress?: (fraction: number) => void,
  name = "upload",
): Promise<Upload> {
  const token = await ensureCsrf();
  const form = new FormData();
  form.append("kind", kind);
  form.append("file", file, (file as File).name ?? name);
  return new Promise<Upload>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", apiUrl("/account/upload"));
    xhr.setRequestHeader("x-csrf-token", token);
    xhr.setRequestHeader("accept", "application/json");
    xhr.setRequestHeader("accept-language", language.value);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress?.(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, "NETWORK_ERROR", t("errors.uploadInterrupted")));
    xhr.onload = () => {
      let body: Envelope<Upload> | null = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not an envelope (a proxy's error page): reported with the status below
      }
      if (body?.success) {
        onProgress?.(1);
        resolve(body.data!);
      } else reject(errorFrom(xhr.status, body, xhr.getResponseHeader("retry-after")));
    };
    xhr.send(form);
  });
}

/** A person-readable sentence for an error, with the wait time of a rate limit. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.code === "RATE_LIMITED") {
      // the server says which limit (requests, a locked account); the app adds when to come back
      return err.retryAfter
        ? t("errors.rateLimited", { message: err.message, wait: formatWait(err.retryAfter) })
        : t("errors.rateLimitedWait", { message: err.message });
    }
    return err.message;
  }
  return err instanceof Error ? err.message : String(err);
}
