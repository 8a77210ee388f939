import type { Generated, Selectable } from "kysely";

/** A person's spendable balance, or a bot's income: held during the hold, then withdrawable. */
export type StarAccount = "balance" | "held" | "income";
export type LedgerKind = "grant" | "payment" | "refund" | "hold_release" | "withdrawal" | "gift";

export interface StarWalletsTable {
  id: Generated<number>;
  user_id: number;
  account: StarAccount;
  /** never negative (CHECK); always the sum of the wallet's ledger rows */
  balance: Generated<number>;
  updated_at: number;
}

export interface StarLedgerTable {
  id: Generated<number>;
  cuid: string;
  wallet_id: number;
  user_id: number;
  account: StarAccount;
  /** signed change of the wallet (never 0) */
  amount: number;
  balance_after: number;
  kind: LedgerKind;
  /** charge id of a payment or refund; shared id of a gift's or withdrawal's two rows */
  reference: string | null;
  /** the other side: the bot of a payment, the other person of a gift */
  counterparty_id: number | null;
  note: string | null;
  created_at: number;
}

export type StarLedgerRow = Selectable<StarLedgerTable>;

export interface StarsTables {
  star_wallets: StarWalletsTable;
  star_ledger: StarLedgerTable;
}
