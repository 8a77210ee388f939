import { defineService, type App } from "../../app";

/**
 * The per-bot developer log: the last Bot API calls of each bot (method, parameters, result
 * or error, latency) and the updates delivered to it, kept in the server's memory only and
 * bounded twice: entries per bot, and characters per value (a sent file shows as its name and
 * size, never its bytes). Tokens never get in: the token is in the path, which is not logged,
 * and webhook secrets are masked.
 */
export interface BotLogEntry {
  /** increasing per process; `after=` continues from one */
  id: number;
  at: string;
  kind: "call" | "update";
  /** call: the method as the client wrote it; update: how it went out ("getUpdates" or "webhook") */
  method: string;
  params?: Record<string, unknown>;
  ok: boolean;
  result?: unknown;
  error?: { code: number; description: string };
  ms?: number;
  /** update: its update_id and type (message, callback_query, ...) */
  update?: { updateId: number; type: string };
}

/** Entries kept per bot; older ones drop out. */
export const BOT_LOG_ENTRIES = 200;
/** Longest string kept in a logged value, the most array items / object keys shown, and how deep. */
const MAX_TEXT = 500;
const MAX_ITEMS = 20;
const MAX_DEPTH = 5;
/** Anything shaped like a bot token (a webhook URL often carries one) is masked wherever it appears. */
const TOKEN_LIKE = /\b\d{1,20}:[A-Za-z0-9_-]{20,}/g;
/** Parameters whose value is a secret of the bot's. */
const SECRET_PARAMS = new Set(["secret_token"]);

interface Follower {
  entry(entry: BotLogEntry): void;
  /** the server is stopping: end the stream */
  end(): void;
}

/**
 * An entry as kept. Most entries are never read, so what costs to show (the time as text, a
 * call's result made safe and small) is made when the entry is first read, by LATER for the
 * result: it holds the call's own answer, which nothing changes once the call has returned.
 */
interface Kept {
  id: number;
  at: number;
  entry: Omit<BotLogEntry, "id" | "at">;
  later?: () => Partial<BotLogEntry>;
  shown?: BotLogEntry;
}

function shownOf(kept: Kept): BotLogEntry {
  if (!kept.shown) {
    kept.shown = { id: kept.id, at: new Date(kept.at).toISOString(), ...kept.entry, ...kept.later?.() };
    kept.later = undefined;
  }
  return kept.shown;
}

export class BotLog {
  private readonly rings = new Map<number, Kept[]>();
  private readonly followers = new Map<number, Set<Follower>>();
  private nextId = 1;

  constructor(
    private readonly now: () => number,
    /** bots whose entries are kept (limits.botLogBots); past it the bot that logged longest ago is forgotten */
    private readonly maxBots: () => number = () => Infinity,
  ) {}

  /**
   * Adds an entry for BOTID (its bots.id) and hands it to whoever follows that bot live. LATER
   * makes the entry's costlier fields when it is first read (see Kept); its fields replace
   * ENTRY's, in ENTRY's order.
   */
  add(botId: number, entry: Omit<BotLogEntry, "id" | "at">, later?: () => Partial<BotLogEntry>): void {
    const kept: Kept = { id: this.nextId++, at: this.now(), entry, later };
    let ring = this.rings.get(botId);
    if (!ring) {
      this.rings.set(botId, (ring = []));
      if (this.rings.size > this.maxBots()) this.forgetQuietest();
    }
    ring.push(kept);
    if (ring.length > BOT_LOG_ENTRIES) ring.splice(0, ring.length - BOT_LOG_ENTRIES);
    const followers = this.followers.get(botId);
    if (followers) for (const f of followers) f.entry(shownOf(kept));
  }

  /** The kept entries of BOTID, oldest first, after entry id AFTER when given. */
  entries(botId: number, after = 0): BotLogEntry[] {
    const out: BotLogEntry[] = [];
    for (const kept of this.rings.get(botId) ?? []) if (kept.id > after) out.push(shownOf(kept));
    return out;
  }

  /**
   * Forgets the log of the bot whose newest entry is oldest. A search of every ring, made only
   * when a bot past the bound logs its first entry, so a call pays nothing to keep an order.
   */
  private forgetQuietest(): void {
    let quietest: number | undefined;
    let newestId = Infinity;
    for (const [botId, ring] of this.rings) {
      const id = ring.at(-1)?.id ?? Infinity;
      if (id < newestId) [quietest, newestId] = [botId, id];
    }
    if (quietest !== undefined) this.rings.delete(quietest);
  }

  /** Bots whose log is kept now (tests). */
  botCount(): number {
    return this.rings.size;
  }

  /** Hands FOLLOWER every new entry of BOTID until the returned function is called. */
  follow(botId: number, follower: Follower): () => void {
    let set = this.followers.get(botId);
    if (!set) this.followers.set(botId, (set = new Set()));
    set.add(follower);
    return () => {
      set.delete(follower);
      if (set.size === 0) this.followers.delete(botId);
    };
  }

  /** Ends every live follower (server shutdown), so no stream holds the shutdown up. */
  endFollowers(): void {
    for (const set of [...this.followers.values()]) for (const f of [...set]) f.end();
  }

  /** Live followers of all bots (tests: a closed stream leaves none behind). */
  followerCount(): number {
    let n = 0;
    for (const set of this.followers.values()) n += set.size;
    return n;
  }
}

/** A value made safe and small for the log: files as name and size, long text cut, secrets masked. */
export function loggable(value: unknown, depth = 0): unknown {
  if (value instanceof Blob)
    return `<file${value instanceof File && value.name ? ` ${value.name}` : ""}, ${value.size} bytes>`;
  if (typeof value === "string") {
    const text = value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}… (${value.length} characters)` : value;
    return text.includes(":") ? text.replace(TOKEN_LIKE, "<token>") : text;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "…";
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => loggable(v, depth + 1));
    return value.length > MAX_ITEMS ? [...items, `… (${value.length} items)`] : items;
  }
  const out: Record<string, unknown> = {};
  let n = 0;
  // for…in, not Object.entries: every Bot API call logs its parameters and result through here
  for (const k in value) {
    if (n++ >= MAX_ITEMS) {
      out["…"] = `${Object.keys(value).length} keys`;
      break;
    }
    const v = (value as Record<string, unknown>)[k];
    out[k] = SECRET_PARAMS.has(k) && v ? "<hidden>" : loggable(v, depth + 1);
  }
  return out;
}

/** Parameters of a call as logged: values as sent, multipart files as name and size. */
export function loggableParams(values: Record<string, unknown>, files: Map<string, File>): Record<string, unknown> {
  const out = loggable(values) as Record<string, unknown>;
  for (const [name, file] of files) out[name] = loggable(file);
  return out;
}

/** An update's id and type (the one field besides update_id: message, callback_query, ...). */
export function describeUpdate(update: Record<string, unknown>): { updateId: number; type: string } {
  return { updateId: Number(update.update_id), type: Object.keys(update).find((k) => k !== "update_id") ?? "unknown" };
}

/** The App's bot developer log (in memory, per serving process). */
export const botLogService = defineService(
  "bots:log",
  (app) =>
    new BotLog(
      () => app.clock.now(),
      () => app.config["limits.botLogBots"],
    ),
);

export const botLogOf = (app: App): BotLog => app.services.get(botLogService);
