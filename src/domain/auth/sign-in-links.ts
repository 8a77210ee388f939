import type { App } from "../../app";
import type { Db } from "../../db";
import { inTransaction } from "../../db/transaction";
import { consumeToken, issueCode } from "./codes";

/** How long a sign-in link works: long enough to open it from the terminal, short enough to be useless once scrolled away. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;

/**
 * A one-time sign-in link token for USER (single use, SIGN_IN_LINK_TTL_MS; only its hash is
 * stored, and a newer link replaces an unused older one). Only `socialctl dev` makes them and
 * only its server has the route that takes them (wiring.ts, `sandbox`), so on an instance
 * served by `socialctl serve` no such link signs anyone in, whoever made it.
 */
export async function issueSignInLink(app: Pick<App, "storage" | "clock">, userId: number): Promise<string> {
  const now = app.clock.now();
  const { token } = await inTransaction(app.storage, (scope) =>
    issueCode(scope, now, {
      userId,
      purpose: "sign_in_link",
      ttlMs: SIGN_IN_LINK_TTL_MS,
      withCode: false,
      withToken: true,
    }),
  );
  return token!;
}

/** Uses up a sign-in link TOKEN: the account it signs in, or null when unknown, used or expired. */
export const consumeSignInLink = (db: Db, now: number, token: string): Promise<number | null> =>
  consumeToken(db, now, "sign_in_link", token);
