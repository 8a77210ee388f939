import { generate } from "otplib";
import type { App } from "../app";
import { clientOf, TestClient, type Reachable } from "./client";
import { makeUser } from "./fixtures";
import { createLogger, type Logger } from "../lib/log";
import type { ManualClock } from "../lib/clock";

/** A logger that keeps records, to read mails the server "sent" to its log (no smtp.host). */
export function capturingLog(): {
  log: Logger;
  records: Array<Record<string, any>>;
  mails(to?: string): Array<Record<string, any>>;
} {
  const records: Array<Record<string, any>> = [];
  const log = createLogger({ level: "info", format: "json", sink: (line) => records.push(JSON.parse(line)) });
  return {
    log,
    records,
    mails: (to) => records.filter((r) => r.msg.startsWith("mail") && (to === undefined || r.to === to)),
  };
}

/** The latest mail of KIND to TO, or throws. */
export function lastMail(capture: ReturnType<typeof capturingLog>, to: string, kind: string): Record<string, any> {
  const found = capture.mails(to).filter((m) => m.kind === kind);
  if (!found.length) throw new Error(`no ${kind} mail to ${to}`);
  return found[found.length - 1]!;
}

/** The TOTP code an authenticator app shows at the server clock's time, OFFSET steps away. */
export const totpAt = (secret: string, clock: ManualClock, offsetSteps = 0) =>
  generate({ secret, epoch: Math.floor(clock.now() / 1000) + offsetSteps * 30 });

/** One fresh account signed in on COUNT devices (each its own cookie jar and user agent "device-i/1.0"). */
export async function signedInDevices(server: Reachable & { app: App }, count: number) {
  const user = await makeUser(server.app);
  const clients: TestClient[] = [];
  for (let i = 0; i < count; i++) {
    const c = clientOf(server);
    c.userAgent = `device-${i}/1.0`;
    const res = await c.login(user.email!, user.password);
    if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
    clients.push(c);
  }
  return { user, clients };
}
