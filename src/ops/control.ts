import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../app";
import { CONTROL_SOCKET } from "../config/layout";
import { realtimeEventNames, type RealtimeEventName } from "../realtime/events";

/*
 * data/control.sock (CONTROL_SOCKET): the serving process's control socket. A one-shot command (the CLI) that
 * changed the database reports it there, with the live events it published, and waits for
 * the answer; so what it changed (a reissued token, a banned device, a new balance) has taken
 * effect in the running server, open streams and parked long polls included, by the time the
 * command returns. The data dir's permissions are its access control, as for the database.
 */

/** A realtime event a command published in its own process, for the server to deliver. */
export interface ReportedEvent {
  userId: number;
  event: RealtimeEventName;
  data: unknown;
}

/** A report is one JSON line; anything longer is not from socialctl. */
const MAX_REPORT_BYTES = 4 * 1024 * 1024;
/** How long a command waits for the server to confirm a change. */
export const REPORT_TIMEOUT_MS = 10_000;

const KNOWN_EVENTS = new Set<string>(realtimeEventNames);

function parseReport(line: string): ReportedEvent[] {
  const report = JSON.parse(line) as { events?: unknown };
  if (!Array.isArray(report.events)) throw new Error("a report needs an events array");
  return report.events.map((e: { userId?: unknown; event?: unknown; data?: unknown }) => {
    if (!Number.isSafeInteger(e.userId) || typeof e.event !== "string" || !KNOWN_EVENTS.has(e.event))
      throw new Error("malformed event in a report");
    return { userId: e.userId as number, event: e.event as RealtimeEventName, data: e.data };
  });
}

/**
 * Listens on the data dir's control socket; ON_REPORT applies a reported change (its promise
 * settles once it has) and the reporter is answered "ok" (or "error", the cause logged here).
 */
export function startControlSocket(app: App, onReport: (events: ReportedEvent[]) => Promise<void>): void {
  const path = join(app.dataDir, CONTROL_SOCKET);
  // a socket file left by a server that was killed: nothing listens on it any more
  rmSync(path, { force: true });
  const answer = async (line: string): Promise<string> => {
    try {
      await onReport(parseReport(line));
      return "ok";
    } catch (err) {
      app.log.error("a change reported on the control socket was not applied", {
        error: err instanceof Error ? err.message : String(err),
      });
      return "error";
    }
  };
  let listener: ReturnType<typeof Bun.listen<{ buf: string }>>;
  try {
    listener = Bun.listen<{ buf: string }>({
      unix: path,
      socket: {
        open(socket) {
          socket.data = { buf: "" };
        },
        data(socket, chunk) {
          socket.data.buf += chunk.toString();
          if (socket.data.buf.length > MAX_REPORT_BYTES) return void socket.end();
          const end = socket.data.buf.indexOf("\n");
          if (end < 0) return;
          const line = socket.data.buf.slice(0, end);
          socket.data.buf = "";
          void answer(line).then((reply) => {
            socket.write(`${reply}\n`);
            socket.end();
          });
        },
      },
    });
  } catch (err) {
    // e.g. a data dir path longer than a socket path may be: the server still runs, and the
    // database's data_version still tells it about other processes' writes on the next read
    app.log.warn("control socket not started: CLI changes reach open streams and long polls only at their next check", {
      path,
      error: err instanceof Error ? err.message : String(err),
    });
    return;
  }
  app.onClose(() => {
    listener.stop(true);
    rmSync(path, { force: true });
  });
}

/**
 * Reports a change this process made to the database in DATA_DIR, with the events it
 * published, to the server running there, and waits until that server has applied it.
 * Resolves false when no server listens; rejects when one does but does not confirm.
 */
export function reportToRunningServer(
  dataDir: string,
  events: ReportedEvent[],
  timeoutMs = REPORT_TIMEOUT_MS,
): Promise<boolean> {
  const path = join(dataDir, CONTROL_SOCKET);
  if (!existsSync(path)) return Promise.resolve(false);
  const notConfirmed = `the change is saved, but the server running on ${dataDir} did not confirm it`;
  return new Promise<boolean>((resolve, reject) => {
    let reply = "";
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(
      () => settle(() => reject(new Error(`${notConfirmed} within ${timeoutMs / 1000} s`))),
      timeoutMs,
    );
    Bun.connect({
      unix: path,
      socket: {
        open(socket) {
          socket.write(`${JSON.stringify({ events })}\n`);
        },
        data(_socket, chunk) {
          reply += chunk.toString();
        },
        close() {
          settle(() => (reply.startsWith("ok") ? resolve(true) : reject(new Error(`${notConfirmed}: see its log`))));
        },
        // a socket file nobody listens on (a server that was killed): there is no server to tell
        connectError() {
          settle(() => resolve(false));
        },
        error(_socket, err) {
          settle(() => reject(new Error(`${notConfirmed}: ${err.message}`)));
        },
      },
    }).catch(() => settle(() => resolve(false)));
  });
}
