import type { App } from "../../app";
import type { Db } from "../../db";
import { AppError } from "../../lib/errors";
import { newCuid } from "../../lib/ids";
import type { LedgerKind, StarAccount } from "./table";

/**
 * The ledger: the only code that changes a wallet. Each change is a guarded UPDATE
 * (`balance >= amount` for a debit, so a balance never goes negative even under concurrency;
 * the CHECK constraint backs it) plus one ledger row with the balance after it. Callers run
 * every multi-entry movement (charge, refund, gift, withdrawal) inside one transaction (inTransaction: on PostgreSQL a deadlock between two wallets runs it again).
 */

export interface LedgerEntry {
  userId: number;
  account: StarAccount;
  /** signed: positive credits, negative debits */
  amount: number;
  kind: LedgerKind;
  reference?: string | null;
  counterpartyId?: number | null;
  note?: string | null;
  now: number;
}

/** 400 INSUFFICIENT_BALANCE: the wallet holds less than the debit. */
export function insufficientBalance(balance: number, required: number, account: StarAccount = "balance"): AppError {
  return new AppError(
    400,
    "INSUFFICIENT_BALANCE",
    account === "balance"
      ? `Not enough stars: ${balance} available, ${required} needed`
      : `Not enough income: ${balance} available, ${required} needed`,
    { balance, required },
  );
}

/** Current balance of one wallet (0 when it was never used). */
export async function walletBalance(db: Db, userId: number, account: StarAccount): Promise<number> {
  const row = await db
    .selectFrom("star_wallets")
    .select("balance")
    .where("user_id", "=", userId)
    .where("account", "=", account)
    .executeTakeFirst();
  return row?.balance ?? 0;
}

/**
 * Locks the wallets of a movement before any of them changes, in one order (user id, then
 * account) whoever moves what to whom: on PostgreSQL a gift one way and a refund or gift the
 * other way would otherwise lock the same two rows in opposite orders and deadlock. The
 * no-op update is the row lock on PostgreSQL; on SQLite the transaction already writes alone.
 */
export async function lockWallets(db: Db, wallets: Array<{ userId: number; account: StarAccount }>, now: number) {
  const ordered = [...wallets].sort((a, b) => a.userId - b.userId || a.account.localeCompare(b.account));
  for (const w of ordered) {
    await db
      .insertInto("star_wallets")
      .values({ user_id: w.userId, account: w.account, balance: 0, updated_at: now })
      .onConflict((oc) => oc.columns(["user_id", "account"]).doNothing())
      .execute();
    await db
      .updateTable("star_wallets")
      .set((eb) => ({ balance: eb.ref("balance") }))
      .where("user_id", "=", w.userId)
      .where("account", "=", w.account)
      .execute();
  }
}

/**
 * Applies one entry to its wallet (created on first use) and records it. A debit larger
 * than the balance throws INSUFFICIENT_BALANCE and changes nothing. Returns the new balance.
 */
export async function postEntry(db: Db, e: LedgerEntry): Promise<number> {
  if (!Number.isSafeInteger(e.amount) || e.amount === 0)
    throw new Error(`ledger amount must be a non-zero integer, got ${e.amount}`);
  await db
    .insertInto("star_wallets")
    .values({ user_id: e.userId, account: e.account, balance: 0, updated_at: e.now })
    .onConflict((oc) => oc.columns(["user_id", "account"]).doNothing())
    .execute();
  const wallet = await db
    .updateTable("star_wallets")
    .set((eb) => ({ balance: eb("balance", "+", e.amount), updated_at: e.now }))
    .where("user_id", "=", e.userId)
    .where("account", "=", e.account)
    .where("balance", ">=", e.amount < 0 ? -e.amount : 0)
    .returning(["id", "balance"])
    .executeTakeFirst();
  if (!wallet) throw insufficientBalance(await walletBalance(db, e.userId, e.account), -e.amount, e.account);
  await db
    .insertInto("star_ledger")
    .values({
      cuid: newCuid(),
      wallet_id: wallet.id,
      user_id: e.userId,
      account: e.account,
      amount: e.amount,
      balance_after: wallet.balance,
      kind: e.kind,
      reference: e.reference ?? null,
      counterparty_id: e.counterpartyId ?? null,
      note: e.note ?? null,
      created_at: e.now,
    })
    .execute();
  return wallet.balance;
}

/** Tells each person their new balance (`stars:balance`), after the change committed. */
export async function publishBalances(app: App, userIds: number[]): Promise<void> {
  for (const userId of new Set(userIds)) {
    const balance = await walletBalance(app.db, userId, "balance");
    app.hooks.publish({ type: "stars:balance", to: [userId], userId, balance });
  }
}

export interface LedgerAudit {
  /** stars that entered the system (grants) */
  granted: number;
  /** sum over every wallet of every account */
  inWallets: number;
  balances: number;
  held: number;
  withdrawable: number;
  /** wallets whose balance differs from the sum of their ledger rows */
  mismatchedWallets: number[];
  negativeWallets: number[];
}

/**
 * Checks the books: every wallet equals the sum of its ledger rows, none is negative, and
 * the stars in all wallets equal the stars ever granted (money never appears or vanishes).
 */
export async function auditLedger(db: Db): Promise<LedgerAudit> {
  const wallets = await db.selectFrom("star_wallets").select(["id", "account", "balance"]).execute();
  const sums = await db
    .selectFrom("star_ledger")
    .select(["wallet_id", (eb) => eb.fn.sum<number>("amount").as("total")])
    .groupBy("wallet_id")
    .execute();
  const byWallet = new Map(sums.map((s) => [s.wallet_id, Number(s.total)]));
  const granted = await db
    .selectFrom("star_ledger")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("amount"), eb.lit(0)).as("total"))
    .where("kind", "=", "grant")
    .executeTakeFirstOrThrow();
  const audit: LedgerAudit = {
    granted: Number(granted.total),
    inWallets: 0,
    balances: 0,
    held: 0,
    withdrawable: 0,
    mismatchedWallets: [],
    negativeWallets: [],
  };
  for (const w of wallets) {
    audit.inWallets += w.balance;
    if (w.account === "balance") audit.balances += w.balance;
    else if (w.account === "held") audit.held += w.balance;
    else audit.withdrawable += w.balance;
    if ((byWallet.get(w.id) ?? 0) !== w.balance) audit.mismatchedWallets.push(w.id);
    if (w.balance < 0) audit.negativeWallets.push(w.id);
  }
  return audit;
}
