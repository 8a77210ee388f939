import { badRequest, botError } from "./errors";

/** Largest request body the Bot API reads (files up to 50 MB plus form overhead). */
export const MAX_BOT_BODY = 52 * 1024 * 1024;

/**
 * The one parameter model of a Bot API call: GET query, JSON, urlencoded and multipart
 * all land here. Form values are strings; composite values may be JSON text; booleans
 * accept true/false and 1/0. Unknown parameters are simply never read.
 */
export class Params {
  constructor(
    readonly values: Record<string, unknown>,
    /** multipart file parts by part name (field name or attach:// name) */
    readonly files: Map<string, File> = new Map(),
  ) {}

  has(name: string): boolean {
    const v = this.values[name];
    return v !== undefined && v !== null && v !== "";
  }

  /** Present in the request at all, even as JSON null (editMessage*: null removes buttons). */
  given(name: string): boolean {
    return Object.hasOwn(this.values, name) || this.files.has(name);
  }

  /** The raw value, or undefined when absent/empty; absent and REQUIRED is 400 "<name> is empty". */
  private present(name: string, required: boolean | undefined, empty?: string): unknown {
    const v = this.values[name];
    if (v !== undefined && v !== null && v !== "") return v;
    if (required) throw badRequest(empty ?? `${name} is empty`);
    return undefined;
  }

  str(name: string, opts: { required?: boolean; max?: number; min?: number; empty?: string } = {}): string | undefined {
    const v = this.present(name, opts.required, opts.empty);
    if (v === undefined) return undefined;
    const s = typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : null;
    if (s === null) throw badRequest(`${name} must be a String`);
    const len = utf16Length(s);
    if (opts.min !== undefined && len < opts.min) throw badRequest(`${name} is too short (minimum ${opts.min})`);
    if (opts.max !== undefined && len > opts.max) throw badRequest(`${name} is too long (maximum ${opts.max})`);
    return s;
  }

  int(name: string, opts: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    const v = this.present(name, opts.required);
    if (v === undefined) return undefined;
    const n =
      typeof v === "number" ? v : typeof v === "string" && /^-?\d{1,16}$/.test(v.trim()) ? Number(v.trim()) : NaN;
    if (!Number.isSafeInteger(n)) throw badRequest(`${name} must be an Integer`);
    if (opts.min !== undefined && n < opts.min) throw badRequest(`${name} must be at least ${opts.min}`);
    if (opts.max !== undefined && n > opts.max) throw badRequest(`${name} must be at most ${opts.max}`);
    return n;
  }

  /**
   * An integer read as the compatible server reads one it clamps (getUpdates' offset, limit,
   * timeout): the value's leading digits (0 when it has none), FALLBACK when it is absent.
   */
  lenientInt(name: string, fallback: number): number {
    const v = this.values[name];
    if (v === undefined || v === null || v === "") return fallback;
    if (typeof v === "number") return Number.isFinite(v) ? Math.trunc(v) : 0;
    const digits = typeof v === "string" ? /^\s*(-?\d{1,16})/.exec(v) : null;
    return digits ? Number(digits[1]) : 0;
  }

  float(name: string, opts: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    const v = this.present(name, opts.required);
    if (v === undefined) return undefined;
    const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
    if (!Number.isFinite(n)) throw badRequest(`${name} must be a Float`);
    if ((opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max)) {
      throw badRequest(`${name} must be between ${opts.min} and ${opts.max}`);
    }
    return n;
  }

  bool(name: string): boolean | undefined {
    const v = this.present(name, false);
    if (v === undefined) return undefined;
    if (v === true || v === 1 || v === "true" || v === "1" || v === "True") return true;
    if (v === false || v === 0 || v === "false" || v === "0" || v === "False") return false;
    throw badRequest(`${name} must be a Boolean`);
  }

  /** A composite value: an object/array, or JSON text of one. `null` stays null. */
  json(name: string, opts: { required?: boolean } = {}): unknown {
    const v = this.values[name];
    if (v === undefined || v === "") {
      if (opts.required) throw badRequest(`${name} is empty`);
      return undefined;
    }
    if (typeof v !== "string") return v;
    try {
      return JSON.parse(v);
    } catch {
      throw badRequest(`can't parse ${name} JSON object`);
    }
  }

  /** An id of a chat or person: an integer or `@username`. */
  chatRef(name = "chat_id", opts: { required?: boolean } = { required: true }): number | string | undefined {
    const v = this.present(name, opts.required);
    if (v === undefined) return undefined;
    if (typeof v === "number" && Number.isSafeInteger(v)) return v;
    if (typeof v === "string") {
      const s = v.trim();
      if (/^-?\d{1,16}$/.test(s)) return Number(s);
      if (/^@[A-Za-z0-9_]{1,64}$/.test(s)) return s;
    }
    throw badRequest(name === "chat_id" ? "chat not found" : `invalid ${name} specified`);
  }
}

export const utf16Length = (s: string): number => s.length;

/**
 * The request body, decompressed when it comes with Content-Encoding (node-fetch under Bun
 * gzips request bodies: Telegraf sends them so). Decompression is capped at MAX_BOT_BODY.
 */
async function decodedBody(request: Request, type: string): Promise<Request | Response> {
  const encoding = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (encoding === "identity" || encoding === "") return request;
  const raw = Buffer.from(await request.arrayBuffer());
  const opts = { maxOutputLength: MAX_BOT_BODY };
  // loaded by the first compressed body: node:zlib is a heavy module few bot libraries need
  const zlib = require("node:zlib") as typeof import("node:zlib");
  let body: Buffer;
  if (encoding === "gzip" || encoding === "x-gzip") body = zlib.gunzipSync(raw, opts);
  else if (encoding === "deflate") body = zlib.inflateSync(raw, opts);
  else if (encoding === "br") body = zlib.brotliDecompressSync(raw, opts);
  else throw badRequest(`unsupported Content-Encoding ${encoding}`);
  return new Response(new Uint8Array(body), { headers: { "content-type": type } });
}

function jsonObjectOrNull(text: string): Record<string, unknown> | null {
  if (text.trim() === "") return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Reads the request into Params; an unreadable form or compressed body is 400 in the Bot API envelope. */
export async function readParams(request: Request): Promise<Params> {
  const values: Record<string, unknown> = {};
  // the query alone, not a URL object: most calls have none (Bun's request URLs carry no fragment)
  const query = request.url.indexOf("?");
  if (query >= 0) for (const [k, v] of new URLSearchParams(request.url.slice(query + 1))) values[k] = v;
  const files = new Map<string, File>();
  if (request.method === "GET" || request.method === "HEAD") return new Params(values, files);
  const length = Number(request.headers.get("content-length") ?? "0");
  if (length > MAX_BOT_BODY) throw botError(413, "Request Entity Too Large");
  const type = request.headers.get("content-type") ?? "";
  const lower = type.toLowerCase();
  try {
    const body = await decodedBody(request, type);
    if (lower.includes("multipart/form-data") || lower.includes("application/x-www-form-urlencoded")) {
      const form = await body.formData();
      for (const [k, v] of form) {
        if (typeof v === "string") values[k] = v;
        else files.set(k, v as File);
      }
    } else {
      // JSON, also when the content type is missing or wrong (some clients omit it); as the
      // compatible server does, a body that is not a JSON object (null, [], broken text) is
      // ignored and the method runs on the query's parameters alone (telebot.v3 sends null)
      const parsed = jsonObjectOrNull(await body.text());
      if (parsed) Object.assign(values, parsed);
    }
  } catch (err) {
    if ((err as { code?: string }).code === "BOT_API") throw err;
    throw badRequest("can't parse request body");
  }
  return new Params(values, files);
}
