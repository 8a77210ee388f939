import type { App } from "../../app";
import { revokeOtherSessions } from "./service";

/**
 * Revokes USER's sessions except KEEP (null: all of them) and tells each revoked session's
 * streams to close ('session:revoked'). Returns how many were revoked.
 */
export async function revokeSessionsAndNotify(app: App, userId: number, keepSessionId: number | null): Promise<number> {
  const revoked = await revokeOtherSessions(app.db, app.clock.now(), userId, keepSessionId);
  for (const sessionId of revoked) app.events.publish(userId, "session:revoked", { sessionId });
  return revoked.length;
}
