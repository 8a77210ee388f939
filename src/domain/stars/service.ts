import type { App } from "../../app";
import type { Db } from "../../db";
import { fieldError, forbidden, notFound } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import { decodeCursor, pageOf } from "../../lib/paging";
import { isBlockedEitherWay } from "../relations/service";
import { findUserById, findUserByUsername } from "../users/service";
import type { UserRow } from "../users/table";
import { lockWallets, postEntry, publishBalances, walletBalance } from "./ledger";
import { inTransaction } from "../../db/transaction";

/** Largest single grant (CLI) and gift. */
export const MAX_GRANT = 1_000_000_000;
export const MAX_GIFT = 1_000_000;
export const MAX_NOTE = 200;

/** A person's spendable stars. */
export const starBalance = (db: Db, userId: number): Promise<number> => walletBalance(db, userId, "balance");

/** Stars can belong to people only: not bots, not the system account, not closed accounts. */
function assertCanHoldStars(user: UserRow, field: string): void {
  if (user.is_bot || user.is_system)
    throw fieldError(field, "stars belong to people only, not to bots or the system account");
  if (user.deleted_at !== null) throw notFound("User not found");
}

/**
 * Credits stars to a person (socialctl stars grant): the only way stars enter the system.
 * Returns the new balance.
 */
export async function grantStars(app: App, userId: number, amount: number, reason?: string | null): Promise<number> {
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_GRANT)
    throw fieldError("amount", `must be an integer from 1 to ${MAX_GRANT}`);
  const user = await findUserById(app.db, userId);
  if (!user) throw notFound("User not found");
  assertCanHoldStars(user, "username");
  const note = reason?.trim() ? reason.trim().slice(0, MAX_NOTE) : null;
  const now = app.clock.now();
  const balance = await inTransaction(app.storage, ({ db: trx }) =>
    postEntry(trx, { userId, account: "balance", amount, kind: "grant", note, now }),
  );
  await publishBalances(app, [userId]);
  return balance;
}

export interface GiftInput {
  senderId: number;
  recipientUsername: string;
  amount: number;
  note?: string | null;
}

/** Moves stars from one person to another in one transaction. Returns the sender's new balance and the gift. */
export async function giftStars(
  app: App,
  input: GiftInput,
): Promise<{ balance: number; giftId: string; note: string | null; recipient: UserRow }> {
  if (!Number.isSafeInteger(input.amount) || input.amount < 1 || input.amount > MAX_GIFT)
    throw fieldError("amount", `must be an integer from 1 to ${MAX_GIFT}`);
  const note = input.note?.trim() ? input.note.trim() : null;
  if (note && note.length > MAX_NOTE) throw fieldError("note", `must be at most ${MAX_NOTE} characters`);
  const recipient = await findUserByUsername(app.db, input.recipientUsername);
  if (!recipient || recipient.disabled_at !== null || recipient.deleted_at !== null) throw notFound("User not found");
  if (recipient.id === input.senderId) throw fieldError("username", "you cannot gift stars to yourself");
  assertCanHoldStars(recipient, "username");
  if (await isBlockedEitherWay(app.db, input.senderId, recipient.id))
    throw forbidden("You cannot gift stars to this person");
  const giftId = newCuid();
  const now = app.clock.now();
  const balance = await inTransaction(app.storage, async ({ db: trx }) => {
    await lockWallets(
      trx,
      [
        { userId: input.senderId, account: "balance" },
        { userId: recipient.id, account: "balance" },
      ],
      now,
    );
    const after = await postEntry(trx, {
      userId: input.senderId,
      account: "balance",
      amount: -input.amount,
      kind: "gift",
      reference: giftId,
      counterpartyId: recipient.id,
      note,
      now,
    });
    await postEntry(trx, {
      userId: recipient.id,
      account: "balance",
      amount: input.amount,
      kind: "gift",
      reference: giftId,
      counterpartyId: input.senderId,
      note,
      now,
    });
    return after;
  });
  await publishBalances(app, [input.senderId, recipient.id]);
  await app.hooks.emit("stars:gifted", {
    senderId: input.senderId,
    recipientId: recipient.id,
    amount: input.amount,
    note,
  });
  return { balance, giftId, note, recipient };
}

/** A page of a person's balance history, newest first, with the other side of each entry. */
export async function listTransactions(app: App, userId: number, cursorRaw: string | undefined, limit: number) {
  const cursor = decodeCursor(cursorRaw);
  let q = app.db
    .selectFrom("star_ledger as l")
    .leftJoin("users as u", "u.id", "l.counterparty_id")
    .selectAll("l")
    .select([
      "u.cuid as counterpartyCuid",
      "u.username as counterpartyUsername",
      "u.display_name as counterpartyName",
      "u.is_bot as counterpartyIsBot",
    ])
    .where("l.user_id", "=", userId)
    .where("l.account", "=", "balance")
    .orderBy("l.created_at", "desc")
    .orderBy("l.id", "desc")
    .limit(limit + 1);
  if (cursor)
    q = q.where((eb) =>
      eb.or([
        eb("l.created_at", "<", cursor.t),
        eb.and([eb("l.created_at", "=", cursor.t), eb("l.id", "<", cursor.id)]),
      ]),
    );
  const rows = await q.execute();
  return pageOf(rows, limit, (r) => ({ t: r.created_at, id: r.id }));
}

export type TransactionRow = Awaited<ReturnType<typeof listTransactions>>["items"][number];
