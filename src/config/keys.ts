import { parseDurationSeconds } from "../lib/duration";

/**
 * Every config key the service knows, with its default and parser. Names are a contract
 * (product.md): scripts and tests set them with `socialctl config set KEY VALUE`.
 * A feature adds its keys here, one line each.
 */
export interface KeySpec<T> {
  default: T;
  parse(raw: string): T;
  describe: string;
}

const int =
  (min: number, max: number) =>
  (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`must be an integer from ${min} to ${max}`);
    return n;
  };
const bool = (raw: string): boolean => {
  if (["true", "1", "yes", "on"].includes(raw)) return true;
  if (["false", "0", "no", "off"].includes(raw)) return false;
  throw new Error("must be true or false");
};
const oneOf =
  <T extends string>(...values: T[]) =>
  (raw: string): T => {
    if (!values.includes(raw as T)) throw new Error(`must be one of ${values.join(", ")}`);
    return raw as T;
  };
const str = (raw: string): string => raw;
const url = (raw: string): string => {
  if (raw === "") return raw;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error("must be an absolute http(s) URL");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("must be an absolute http(s) URL");
  return raw.replace(/\/+$/, "");
};
/** redis://[user:password@]host[:port][/db] (rediss:// for TLS), or empty for none. */
const redisUrl = (raw: string): string => {
  if (raw === "") return raw;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error("must be a redis://host:port[/db] URL");
  }
  if ((u.protocol !== "redis:" && u.protocol !== "rediss:") || !u.hostname || !/^(\/[0-9]{0,2})?$/.test(u.pathname))
    throw new Error("must be a redis://host:port[/db] URL");
  return raw;
};
/** postgres://user:pass@host:port/db (postgresql:// too), or empty for SQLite. */
const postgresUrl = (raw: string): string => {
  if (raw === "") return raw;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error("must be empty (SQLite) or postgres://user:pass@host:port/db");
  }
  if ((u.protocol !== "postgres:" && u.protocol !== "postgresql:") || !u.hostname || u.pathname.length < 2)
    throw new Error("must be empty (SQLite) or postgres://user:pass@host:port/db");
  return raw;
};
const text =
  (max: number, { required = false } = {}) =>
  (raw: string): string => {
    const value = raw.trim();
    if (required && value === "") throw new Error("must not be empty");
    if (value.length > max) throw new Error(`must be at most ${max} characters`);
    return value;
  };
/** A JSON array of short texts, as `config set` and the admin API give it: '["Be kind", "No spam"]'. */
const textList =
  (maxItems: number, maxLength: number) =>
  (raw: string): string[] => {
    let parsed: unknown;
    try {
      parsed = raw.trim() === "" ? [] : JSON.parse(raw);
    } catch {
      throw new Error('must be a JSON array of strings, such as ["Be kind", "No spam"]');
    }
    if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string"))
      throw new Error('must be a JSON array of strings, such as ["Be kind", "No spam"]');
    const items = parsed.map((item: string) => item.trim()).filter((item) => item !== "");
    if (items.length > maxItems) throw new Error(`must have at most ${maxItems} items`);
    if (items.some((item) => item.length > maxLength))
      throw new Error(`must have items of at most ${maxLength} characters`);
    return items;
  };
/** A file of this instance's store, as its upload's URL gives it: kept as the path "/files/<name>" (or empty for none). */
const storedFile = (raw: string): string => {
  const value = raw.trim();
  if (value === "") return value;
  let path = value;
  if (!value.startsWith("/")) {
    try {
      path = new URL(value).pathname;
    } catch {
      throw new Error("must be an uploaded file's URL (/files/<name>) or empty");
    }
  }
  if (!/^\/files\/[A-Za-z0-9_-]{24}\.[a-z0-9]{1,5}$/.test(path))
    throw new Error("must be an uploaded file's URL (/files/<name>) or empty");
  return path;
};
const spec = <T>(d: T, parse: (raw: string) => T, describe: string): KeySpec<T> => ({ default: d, parse, describe });

export const configKeys = {
  baseUrl: spec("", url, "public origin used in file URLs, links, webhooks (default http://127.0.0.1:<port>)"),
  port: spec(3000, int(0, 65535), "listen port"),
  host: spec("0.0.0.0", str, "listen address"),
  registration: spec<"open" | "captcha" | "invite" | "closed">(
    "captcha",
    oneOf("open", "captcha", "invite", "closed"),
    "open, captcha, invite (a code from an administrator) or closed",
  ),
  trustProxy: spec(false, bool, "take the client IP from X-Forwarded-For (behind a reverse proxy)"),
  "auth.accessTtlSeconds": spec(900, int(1, 86400), "access token lifetime"),
  "auth.refreshTtlSeconds": spec(2592000, int(60, 31536000), "refresh token lifetime"),
  "auth.requireVerifiedEmail": spec(false, bool, "refuse sign-in until the e-mail address is confirmed"),
  "limits.clientRps": spec(20, int(1, 1000000), "Client API requests per second per IP"),
  "limits.loginPer10Min": spec(10, int(1, 1000000), "login and password-recovery attempts per IP per 10 minutes"),
  "limits.passwordFailuresPerAccount": spec(
    10,
    int(1, 1000000),
    "wrong passwords for one account within limits.accountLockMinutes after which its password sign-in is paused",
  ),
  "limits.accountLockMinutes": spec(
    15,
    int(1, 1440),
    "how long an account's password sign-in stays paused (signed-in sessions keep working)",
  ),
  "limits.blockAfterRejections": spec(
    200,
    int(1, 100000000),
    "rate-limited requests within a minute after which an address is blocked",
  ),
  "limits.blockSeconds": spec(600, int(1, 86400), "how long a hammering address stays blocked"),
  "limits.botCallsPerMinute": spec(600, int(1, 1000000), "Bot API calls per token per minute"),
  "limits.botRefusalHoldMs": spec(
    3000,
    int(0, 60000),
    "how long the Bot API holds a 429 and a repeated getUpdates 409 before answering, as Telegram does, so retrying bots do not spin (0: at once)",
  ),
  "limits.searchBudgetMs": spec(
    250,
    int(0, 60000),
    "time one search statement may take before it is stopped and the search answers 503 SEARCH_TIMEOUT, so a search never holds up other requests (0: stop every search at once)",
  ),
  "limits.rateLimitKeys": spec(
    100000,
    int(1000, 10000000),
    "rate-limit windows (per address, account or token) and address blocks kept in memory at a time; past it the one opened longest ago is forgotten",
  ),
  "limits.longReadQueue": spec(
    64,
    int(1, 100000),
    "SQLite: long reads (searches, account exports, the admin area's lists; a search of every list counts once) waiting for the read worker, beyond which another is refused with 503 (a search: SEARCH_TIMEOUT) instead of queueing",
  ),
  "limits.longPolls": spec(
    10000,
    int(1, 10000000),
    "getUpdates calls waiting for updates on one server at a time; past it the one waiting longest answers at once with what is queued (usually nothing), as at its timeout",
  ),
  "limits.pollingBots": spec(
    100000,
    int(1, 10000000),
    "bots whose newest getUpdates call and held conflict one server remembers; past it the bot heard from longest ago is forgotten",
  ),
  "limits.heldRefusals": spec(
    10000,
    int(0, 10000000),
    "Bot API refusals held at once for limits.botRefusalHoldMs; past it a refusal is answered at once",
  ),
  "limits.botAnswerWaits": spec(
    10000,
    int(1, 10000000),
    "button presses and pre-checkout queries (each) whose person waits on one server for the bot's answer; past it the one waiting longest ends without an answer, as when the bot does not answer in time",
  ),
  "limits.botLogBots": spec(
    1000,
    int(1, 10000000),
    "bots whose developer log (their last 200 calls) one server keeps in memory; past it the log of the bot that called longest ago is forgotten",
  ),
  "limits.webhookDeliveries": spec(
    64,
    int(1, 100000),
    "bots whose updates one server sends to their webhooks at once; the others' updates wait in the database for the next turn",
  ),
  "limits.postsPerHour": spec(60, int(1, 1000000), "new posts and reposts per account per hour"),
  "limits.commentsPerHour": spec(200, int(1, 1000000), "new comments per account per hour"),
  "limits.reportsPerHour": spec(20, int(1, 1000000), "new reports per account per hour"),
  "moderation.blockedWords": spec(
    "",
    str,
    "comma-separated words that make a post or comment rejected (CONTENT_REJECTED)",
  ),
  "limits.followsPerHour": spec(200, int(1, 1000000), "follow and unfollow actions per account per hour"),
  "limits.botNewChatsPerHour": spec(
    30,
    int(1, 1000000),
    "chats with people a bot may open per hour by writing first (mass mailing stops here)",
  ),
  "instance.name": spec(
    "socialctl",
    text(60, { required: true }),
    "the instance's name: page titles, sign-in page, /about",
  ),
  "instance.description": spec("", text(2000), "what the instance is about, shown on the sign-in page and /about"),
  "instance.rules": spec<string[]>(
    [],
    textList(50, 1000),
    'the rules people accept when they register, a JSON array of strings: ["Be kind", "No spam"]',
  ),
  "instance.contact": spec("", text(320), "how to reach the administrators (an e-mail address or a link), on /about"),
  "instance.icon": spec(
    "",
    storedFile,
    "the instance's icon (an uploaded image's URL, /files/<name>): the installed app's icons and the favicon; empty for the default",
  ),
  "limits.messagesPerMinute": spec(
    120,
    int(1, 1000000),
    "chat messages (sends and forwards) per account per minute in the Client API",
  ),
  "limits.streamsPerSession": spec(
    10,
    int(1, 1000000),
    "open realtime streams per session on one server; a newer one closes the oldest",
  ),
  "limits.streamsPerAccount": spec(
    30,
    int(1, 1000000),
    "open realtime streams per account on one server; a newer one closes the oldest",
  ),
  "limits.streams": spec(
    20000,
    int(1, 10000000),
    "open realtime streams on one server; past it a new one is refused with 503 SERVICE_UNAVAILABLE and its client connects again a little later",
  ),
  "limits.resumeAccounts": spec(
    100000,
    int(1, 10000000),
    "accounts whose recent events one server keeps so a dropped realtime stream resumes (realtime.retentionSeconds); past it a disconnected account's are forgotten, oldest first, and its next stream refetches its state",
  ),
  "realtime.heartbeatSeconds": spec(
    15,
    int(1, 300),
    "heartbeat interval of realtime streams (SSE comments, WebSocket pings)",
  ),
  "realtime.retentionSeconds": spec(
    300,
    int(1, 86400),
    "how long recent events are kept for resuming a realtime stream",
  ),
  "realtime.maxBufferedEvents": spec(
    1000,
    int(10, 1000000),
    "events a slow realtime connection may fall behind before it is disconnected",
  ),
  "payments.preCheckoutTimeoutSeconds": spec(10, int(1, 300), "wait for answerPreCheckoutQuery"),
  "payments.holdSeconds": spec(259200, int(0, 31536000), "income hold before withdrawal"),
  "bot.allowPrivateWebhooks": spec(false, bool, "allow http and loopback/private addresses for webhooks and file URLs"),
  "push.allowPrivateEndpoints": spec(
    false,
    bool,
    "allow http and loopback/private addresses as Web Push endpoints (tests, a push service on the local network)",
  ),
  "links.allowPrivatePreviews": spec(
    false,
    bool,
    "allow link previews of loopback/private addresses (tests, an intranet); public http and https pages are always previewed",
  ),
  "smtp.host": spec("", str, "SMTP server; without it codes and links go to the server log"),
  "smtp.port": spec(587, int(1, 65535), "SMTP port"),
  "smtp.user": spec("", str, "SMTP user"),
  "smtp.password": spec("", str, "SMTP password"),
  "smtp.from": spec("", str, "sender address of e-mails"),
  "mail.digestAfterHours": spec(
    24,
    int(1, 8760),
    "hours without a visit after which a person who switched on the e-mail digest is mailed what they have not read (needs smtp.host)",
  ),
  "log.format": spec<"auto" | "json" | "human">(
    "auto",
    oneOf("auto", "json", "human"),
    "server log format: auto is human-readable on a terminal and JSON otherwise",
  ),
  "log.level": spec<"debug" | "info" | "warn" | "error">(
    "info",
    oneOf("debug", "info", "warn", "error"),
    "server log level",
  ),
  "log.requests": spec<"all" | "sampled" | "errors">(
    "sampled",
    oneOf("all", "sampled", "errors"),
    "access lines: all, sampled (at most log.requestsPerSecond a second, the rest counted) or errors (answers of 500 and above, which every mode logs)",
  ),
  "log.requestsPerSecond": spec(20, int(1, 1_000_000), "access lines a second at most when log.requests is sampled"),
  "metrics.enabled": spec(
    false,
    bool,
    "serve Prometheus metrics at /metrics (on the main listener only with metrics.token, or on metrics.port)",
  ),
  "metrics.port": spec(
    0,
    int(0, 65535),
    "serve /metrics on a listener of its own on 127.0.0.1:<port> instead of the main one (0: main listener)",
  ),
  "metrics.token": spec("", str, "bearer token /metrics requires (Authorization: Bearer <token>)"),
  "database.url": spec(
    "",
    postgresUrl,
    "empty: SQLite under the data dir; postgres://user:pass@host:port/db: PostgreSQL (every node of the instance the same)",
  ),
  "database.poolSize": spec(
    10,
    int(1, 1000),
    "PostgreSQL: connections a node (or a socialctl command that opens the instance) keeps open to the database at most; every node's pool must fit under the server's max_connections",
  ),
  "database.walLimitMB": spec(
    64,
    int(4, 1_000_000),
    "SQLite: the WAL length at which writes wait a moment for the checkpoint worker to start the log over, so a write load that never pauses keeps the WAL file near this size",
  ),
  "backup.every": spec(
    0,
    parseDurationSeconds,
    "seconds between automatic backups by the server (0 off; 30m, 6h, 1d accepted)",
  ),
  "backup.keep": spec(7, int(1, 10000), "automatic backups kept in data/backups (older ones are removed)"),
  "housekeeping.everySeconds": spec(
    600,
    int(1, 86400),
    "how often the server checkpoints the WAL, optimizes the database and runs cleanups",
  ),
  "uploads.abandonAfterHours": spec(
    24,
    int(1, 87600),
    "uploads never attached to anything are removed after this many hours",
  ),
  "stories.mediaRetentionHours": spec(
    24,
    int(0, 87600),
    "hours after a story expires (24 h) or is deleted before it and its media files are removed",
  ),
  "bot.updateRetentionHours": spec(
    24,
    int(0, 87600),
    "hours a delivered bot update is kept before the server deletes it",
  ),
  "bot.pendingUpdateHours": spec(
    24,
    int(0, 87600),
    "hours an undelivered bot update waits for its bot before it is dropped, as Telegram does (0 keeps it until fetched)",
  ),
  "pubsub.url": spec(
    "",
    redisUrl,
    "redis://host:port[/db]: realtime events, long-poll wake-ups, cache invalidation, leases and rate-limit counters shared by every node (empty: in this process)",
  ),
  "readiness.maxEventLoopLagMs": spec(
    3000,
    int(0, 600000),
    "a node whose event loop runs this many ms late (CPU-starved, stalled) answers /readyz 503 until it catches up (0: never)",
  ),
  "files.s3.endpoint": spec(
    "",
    url,
    "S3-compatible endpoint (https://s3.eu-central-1.amazonaws.com, http://minio:9000); with files.s3.bucket set, uploads live in the bucket",
  ),
  "files.s3.bucket": spec("", str, "bucket holding uploads, thumbnails and posters (empty: files under the data dir)"),
  "files.s3.region": spec("us-east-1", str, "the bucket's region"),
  "files.s3.accessKeyId": spec("", str, "access key id (env SOCIAL_S3_ACCESS_KEY_ID overrides)"),
  "files.s3.secretAccessKey": spec("", str, "secret access key (env SOCIAL_S3_SECRET_ACCESS_KEY overrides)"),
  "files.s3.serve": spec<"proxy" | "redirect">(
    "proxy",
    oneOf("proxy", "redirect"),
    "proxy: the instance's file URLs stream from the bucket; redirect: they answer 302 to a presigned bucket URL",
  ),
} satisfies Record<string, KeySpec<unknown>>;

export type ConfigKey = keyof typeof configKeys;
export type Config = { readonly [K in ConfigKey]: (typeof configKeys)[K]["default"] };

export const isConfigKey = (key: string): key is ConfigKey => Object.hasOwn(configKeys, key);

/**
 * Keys an admin may change on the running server (PATCH /api/admin/settings), stored in the
 * instance's database and applied on every node (domain/admin/settings.ts). Each is read
 * where it is used, per request, so a new value applies to the next request: the sign-up
 * mode, the blocked-words list, the rate limits and the instance's name, description, rules
 * and contact. Everything else (addresses, secrets,
 * lifetimes baked into issued tokens, workers' timers) needs `config set` and a restart.
 */
export const isLiveConfigKey = (key: string): key is ConfigKey =>
  isConfigKey(key) &&
  (key === "registration" ||
    key === "moderation.blockedWords" ||
    key.startsWith("limits.") ||
    key.startsWith("instance."));

/** A stored or given value as the raw text its key's parser reads (lists are kept as JSON arrays). */
export const rawConfigValue = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

export const liveConfigKeys = (Object.keys(configKeys) as ConfigKey[]).filter(isLiveConfigKey);
