export type LogLevel = "debug" | "info" | "warn" | "error";
/** "auto": a readable line when stderr is a terminal, JSON lines otherwise (journald, files, collectors). */
export type LogFormat = "auto" | "json" | "human";

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Structured logger: one JSON line per record, or a readable line for a terminal. Writes to stderr. */
export function createLogger(
  opts: { level?: LogLevel; format?: LogFormat; sink?: (line: string) => void } = {},
): Logger {
  const min = order[opts.level ?? "info"];
  const format =
    opts.format === "auto"
      ? opts.sink === undefined && process.stderr.isTTY
        ? "human"
        : "json"
      : (opts.format ?? "json");
  const stderr = opts.sink ? null : (stderrLines ??= bufferedStderr());
  const sink: (line: string, urgent: boolean) => void = opts.sink ?? ((line, urgent) => stderr!.write(line, urgent));
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < min) return;
    const urgent = order[level] >= order.warn;
    if (format === "json") {
      if (fields !== undefined && ("time" in fields || "level" in fields || "msg" in fields)) {
        sink(JSON.stringify({ time: isoNow(), level, msg, ...fields }), urgent);
      } else {
        // the fields' JSON after the record's own keys, not the fields spread into a copy first: a
        // server writes a line per request
        const rest = fields === undefined ? "{}" : JSON.stringify(fields);
        sink(
          `{"time":"${isoNow()}","level":"${level}","msg":${JSON.stringify(msg)}${rest.length > 2 ? "," + rest.slice(1) : "}"}`,
          urgent,
        );
      }
    } else {
      const rest = fields
        ? " " +
          Object.entries(fields)
            .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
            .join(" ")
        : "";
      sink(`${isoNow()} ${level.toUpperCase()} ${msg}${rest}`, urgent);
    }
    // a warning or an error is on stderr at once, in order with whatever else the process prints then
    if (stderr && urgent) stderr.flush();
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

let isoMs = 0;
let iso = "";
/** The time as ISO 8601, formatted once per millisecond: a busy server logs many lines in each. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    iso = new Date(ms).toISOString();
  }
  return iso;
}

/** The process's one stderr buffer, shared by its loggers (their lines stay in order). */
let stderrLines: ReturnType<typeof bufferedStderr> | undefined;

/**
 * What may wait, unwritten, for stderr's reader (journald, a pipe to a collector) while it
 * is slower than the server logs: beyond it lines are dropped, not kept in memory.
 */
export const STDERR_BACKLOG_MAX = 1024 * 1024;

/**
 * Writes lines to stderr, those of one turn of the event loop in one write: a server logs
 * a line per request, and a write per line was a system call on every request. Lines keep
 * their order and are written before the process exits (process.exit and uncaught errors
 * included), and at once when 64 KiB are waiting or when FLUSH is called.
 *
 * While stderr's reader falls behind (a write answered false: the stream holds what it could
 * not pass on, in the process's memory, with no bound of its own), lines wait here until it
 * drains, up to STDERR_BACKLOG_MAX; lines beyond are dropped and counted, and the count is
 * written once it drains. Lines written URGENT (warnings, errors) are never dropped.
 */
function bufferedStderr(): { write(line: string, urgent?: boolean): void; flush(): void } {
  let waiting = "";
  let scheduled = false;
  let backedUp = false;
  let dropped = 0;
  const flush = () => {
    if (waiting === "" || backedUp) return;
    const out = waiting;
    waiting = "";
    if (!process.stderr.write(out)) {
      backedUp = true;
      process.stderr.once("drain", drained);
    }
  };
  const drained = () => {
    backedUp = false;
    if (dropped > 0) {
      waiting =
        `{"time":"${isoNow()}","level":"warn","msg":"log lines dropped: stderr was read slower than they came","dropped":${dropped}}\n` +
        waiting;
      dropped = 0;
    }
    flush();
  };
  const scheduledFlush = () => {
    scheduled = false;
    flush();
  };
  process.on("exit", () => {
    backedUp = false;
    flush();
  });
  return {
    write(line, urgent = false) {
      if (backedUp && !urgent && waiting.length >= STDERR_BACKLOG_MAX) {
        dropped++;
        return;
      }
      waiting += line + "\n";
      if (waiting.length >= 64 * 1024) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(scheduledFlush);
      }
    },
    flush,
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
