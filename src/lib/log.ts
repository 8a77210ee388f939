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
  const sink = opts.sink ?? ((line: string) => process.stderr.write(line + "\n"));
  const emit = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < min) return;
    if (format === "json") {
      sink(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
    } else {
      const rest = fields
        ? " " +
          Object.entries(fields)
            .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
            .join(" ")
        : "";
      sink(`${new Date().toISOString()} ${level.toUpperCase()} ${msg}${rest}`);
    }
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
