import { chmodSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../app";
import { CONTROL_SOCKET } from "../config/layout";
import { hmacSha256, randomBytes, safeEqual } from "../lib/crypto";
import { realtimeEventNames, type RealtimeEventName } from "../realtime/events";

/*
 * data/control.sock (CONTROL_SOCKET): the serving process's control socket. A one-shot command (the CLI) that
 * changed the database reports it there, with the live events it published, and waits for
 * the answer; so what it changed (a reissued token, a banned device, a new balance) has taken
 * effect in the running server, open streams and parked long polls included, by the time the
 * command returns.
 *
 * Who may report: the socket is its owner's only (0600, in a 0700 data dir), and, since a
 * data dir made wider by hand would let another local user reach it, every connection must
 * also prove it holds the instance secret: the server opens with a fresh challenge, and the
 * report carries the challenge's HMAC under the secret. A connection without that proof is
 * refused and nothing it sent is delivered (a forged event would reach a person's stream).
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

/** The proof a reporter gives for CHALLENGE: only a holder of the instance secret can make it. */
const proofFor = (secret: string, challenge: string) => hmacSha256(secret, `control-socket:${challenge}`);

/** Why a report was not accepted, as the log says it. */
class RefusedReport extends Error {}

function parseReport(line: string, secret: string, challenge: string): ReportedEvent[] {
  let report: { proof?: unknown; events?: unknown };
  try {
    report = JSON.parse(line) as typeof report;
  } catch {
    throw new RefusedReport("a report that is not JSON");
  }
  if (typeof report.proof !== "string" || !safeEqual(report.proof, proofFor(secret, challenge)))
    throw new RefusedReport("a report without a valid proof of the instance secret");
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
  const answer = async (line: string, challenge: string): Promise<string> => {
    try {
      await onReport(parseReport(line, app.secret, challenge));
      return "ok";
    } catch (err) {
      if (err instanceof RefusedReport) {
        app.log.warn("refused a connection on the control socket", { reason: err.message });
        return "refused";
      }
      app.log.error("a change reported on the control socket was not applied", {
        error: err instanceof Error ? err.message : String(err),
      });
      return "error";
    }
  };
  let listener: ReturnType<typeof Bun.listen<{ buf: string; challenge: string }>>;
  // the socket file is created by the bind with the umask's mode: owner-only from its first
  // moment, not after a chmod that another user could race
  const umask = process.umask(0o177);
  try {
    listener = Bun.listen<{ buf: string; challenge: string }>({
      unix: path,
      socket: {
        open(socket) {
          socket.data = { buf: "", challenge: randomBytes(32).toString("hex") };
          socket.write(`${socket.data.challenge}\n`);
        },
        data(socket, chunk) {
          socket.data.buf += chunk.toString();
          if (socket.data.buf.length > MAX_REPORT_BYTES) return void socket.end();
          const end = socket.data.buf.indexOf("\n");
          if (end < 0) return;
          const line = socket.data.buf.slice(0, end);
          socket.data.buf = "";
          void answer(line, socket.data.challenge).then((reply) => {
            socket.write(`${reply}\n`);
            socket.end();
          });
        },
      },
    });
    chmodSync(path, 0o600);
  } catch (err) {
    // e.g. a data dir path longer than a socket path may be: the server still runs, and the
    // database's data_version still tells it about other processes' writes on the next read
    app.log.warn("control socket not started: CLI changes reach open streams and long polls only at their next check", {
      path,
      error: err instanceof Error ? err.message : String(err),
    });
    return;
  } finally {
    process.umask(umask);
  }
  app.onClose(() => {
    listener.stop(true);
    rmSync(path, { force: true });
  });
}

/**
 * Reports a change this process made to the database in DATA_DIR, with the events it
 * published, to the server running there, and waits until that server has applied it.
 * SECRET is the instance secret of DATA_DIR, which proves the report comes from its owner.
 * Resolves false when no server listens; rejects when one does but does not confirm.
 */
export function reportToRunningServer(
  dataDir: string,
  secret: string,
  events: ReportedEvent[],
  timeoutMs = REPORT_TIMEOUT_MS,
): Promise<boolean> {
  const path = join(dataDir, CONTROL_SOCKET);
  if (!existsSync(path)) return Promise.resolve(false);
  const notConfirmed = `the change is saved, but the server running on ${dataDir} did not confirm it`;
  return new Promise<boolean>((resolve, reject) => {
    let received = "";
    let reported = false;
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
        data(socket, chunk) {
          received += chunk.toString();
          // the server's first line is the challenge this connection answers
          const end = received.indexOf("\n");
          if (reported || end < 0) return;
          reported = true;
          const proof = proofFor(secret, received.slice(0, end));
          received = received.slice(end + 1);
          socket.write(`${JSON.stringify({ proof, events })}\n`);
        },
        close() {
          settle(() => (received.startsWith("ok") ? resolve(true) : reject(new Error(`${notConfirmed}: see its log`))));
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
