import type { App } from "../../app";
import type { Db } from "../../db";
import { toIso } from "../../lib/clock";
import { registerExportSection } from "../account/export";
import type { UserRow } from "../users/table";
import { walletBalance } from "./ledger";

/** Hook listeners of the stars feature (installed for every App from wiring.ts). */
export function installStarsHooks(app: App): void {
  void app;
  registerExportSection(app, "stars", exportStars);
}

/** Data export: the person's balance and every change of it, with the other side's username only. */
async function exportStars(db: Db, user: UserRow) {
  const rows = await db
    .selectFrom("star_ledger as l")
    .leftJoin("users as u", "u.id", "l.counterparty_id")
    .select([
      "l.kind",
      "l.amount",
      "l.balance_after",
      "l.reference",
      "l.note",
      "l.created_at",
      "u.username as counterparty",
    ])
    .where("l.user_id", "=", user.id)
    .where("l.account", "=", "balance")
    .orderBy("l.id")
    .execute();
  return {
    balance: await walletBalance(db, user.id, "balance"),
    transactions: rows.map((r) => ({
      kind: r.kind,
      amount: r.amount,
      balanceAfter: r.balance_after,
      reference: r.reference,
      note: r.note,
      counterparty: r.counterparty,
      createdAt: toIso(r.created_at),
    })),
  };
}
