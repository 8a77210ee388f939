import { useCallback, useEffect, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatNumber } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import { onRealtime } from "../../lib/realtime";
import type { PageInfo, StarTransaction as Transaction } from "../../lib/types";
import { GiftForm } from "./gift";

const signed = new Intl.NumberFormat(undefined, { signDisplay: "exceptZero" });

/** What a ledger line was, in words; the other side links to their profile. */
function describe(t: Transaction) {
  const who = t.counterparty && (
    <a href={`/users/${t.counterparty.username}`}>{t.counterparty.displayName || `@${t.counterparty.username}`}</a>
  );
  switch (t.kind) {
    case "grant":
      return "Granted by the instance";
    case "payment":
      return who ? <>Paid {who}</> : "Payment";
    case "refund":
      return who ? <>Refund from {who}</> : "Refund";
    case "hold_release":
      return "Income released";
    case "withdrawal":
      return who ? <>Income withdrawn from {who}</> : "Income withdrawn";
    case "gift":
      return who ? t.amount < 0 ? <>Gift to {who}</> : <>Gift from {who}</> : "Gift";
    default:
      return t.kind;
  }
}

/** /stars: the balance (live from `stars:balance`), giving stars, and every movement of the balance, newest first. */
export function Stars() {
  const [balance, setBalance] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async (cursor: string | null) => {
    const r = await api.get<{ transactions: Transaction[]; pageInfo: PageInfo }>("/stars/transactions", { cursor });
    return { items: r.transactions, nextCursor: r.pageInfo.nextCursor };
  }, []);
  const list = usePagedList<Transaction>("stars", load);

  const readBalance = useCallback(() => {
    api
      .get<{ balance: number }>("/stars/balance")
      .then((r) => (setBalance(r.balance), setError(null)))
      .catch((err) => setError(describeError(err)));
  }, []);
  useEffect(() => {
    readBalance();
    // a new balance means a new ledger line: the history is read again from the top
    const offBalance = onRealtime("stars:balance", ({ balance: b }) => {
      setBalance(b);
      void list.reload();
    });
    const offReset = onRealtime("stream:reset", () => (readBalance(), void list.reload()));
    return () => (offBalance(), offReset());
  }, []);

  return (
    <Page title="Stars">
      <div class="card star-balance" role="group" aria-labelledby="balance-label">
        <p id="balance-label" class="muted">
          Your balance
        </p>
        <p class="star-amount" aria-live="polite">
          {balance === null ? (
            "…"
          ) : (
            <>
              {formatNumber(balance)} <span class="star-unit">stars</span>
            </>
          )}
        </p>
        <FormError message={error} />
        <p class="hint">
          Stars pay for what bots sell. An administrator grants them, and people can give them to each other.
        </p>
      </div>
      <GiftForm />
      <section class="search-section" aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        {list.items.length > 0 && (
          <ul class="card transaction-list" aria-labelledby="history-title">
            {list.items.map((t) => (
              <li key={t.id} class="transaction">
                <div class="transaction-what">
                  <p>{describe(t)}</p>
                  {t.note && <p class="muted transaction-note">“{t.note}”</p>}
                  <time class="muted" dateTime={t.createdAt}>
                    {formatDateTime(t.createdAt)}
                  </time>
                </div>
                <div class="transaction-amount">
                  <p class={t.amount < 0 ? "out" : "in"}>
                    {signed.format(t.amount)}
                    <span class="visually-hidden"> stars</span>
                  </p>
                  <p class="muted">Balance {formatNumber(t.balanceAfter)}</p>
                </div>
              </li>
            ))}
          </ul>
        )}
        <ListFooter list={list} noun="transactions" empty="No stars have moved yet." />
      </section>
    </Page>
  );
}
