import { useCallback, useEffect, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatNumber, formatSigned } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import { onRealtime } from "../../lib/realtime";
import type { PageInfo, StarTransaction as Transaction } from "../../lib/types";
import { GiftForm } from "./gift";
import { t } from "../../lib/i18n";
import { Sentence } from "../../components/sentence";

/** What a ledger line was, in words; the other side links to their profile. */
function describe(line: Transaction) {
  const who = line.counterparty && (
    <a href={`/users/${line.counterparty.username}`}>
      {line.counterparty.displayName || `@${line.counterparty.username}`}
    </a>
  );
  const withWho = (text: string) => <Sentence text={text} parts={{ who }} />;
  switch (line.kind) {
    case "grant":
      return t("stars.kind.grant");
    case "payment":
      return who ? withWho(t("stars.kind.paid")) : t("stars.kind.payment");
    case "refund":
      return who ? withWho(t("stars.kind.refundFrom")) : t("stars.kind.refund");
    case "hold_release":
      return t("stars.kind.released");
    case "withdrawal":
      return who ? withWho(t("stars.kind.withdrawnFrom")) : t("stars.kind.withdrawn");
    case "gift":
      return who ? withWho(line.amount < 0 ? t("stars.kind.giftTo") : t("stars.kind.giftFrom")) : t("stars.kind.gift");
    default:
      return line.kind;
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
    <Page title={t("nav.stars")}>
      <div class="card star-balance" role="group" aria-labelledby="balance-label">
        <p id="balance-label" class="muted">
          {t("stars.balance")}
        </p>
        <p class="star-amount" aria-live="polite">
          {balance === null ? (
            "…"
          ) : (
            <>
              {formatNumber(balance)} <span class="star-unit">{t("stars.unit", { count: balance })}</span>
            </>
          )}
        </p>
        <FormError message={error} />
        <p class="hint">{t("stars.intro")}</p>
      </div>
      <GiftForm />
      <section class="search-section" aria-labelledby="history-title">
        <h2 id="history-title">{t("stars.history")}</h2>
        {list.items.length > 0 && (
          <ul class="card transaction-list" aria-labelledby="history-title">
            {list.items.map((line) => (
              <li key={line.id} class="transaction">
                <div class="transaction-what">
                  <p>{describe(line)}</p>
                  {line.note && <p class="muted transaction-note">“{line.note}”</p>}
                  <time class="muted" dateTime={line.createdAt}>
                    {formatDateTime(line.createdAt)}
                  </time>
                </div>
                <div class="transaction-amount">
                  <p class={line.amount < 0 ? "out" : "in"}>
                    {formatSigned(line.amount)}
                    <span class="visually-hidden"> {t("stars.unit", { count: Math.abs(line.amount) })}</span>
                  </p>
                  <p class="muted">{t("stars.balanceAfter", { balance: formatNumber(line.balanceAfter) })}</p>
                </div>
              </li>
            ))}
          </ul>
        )}
        <ListFooter list={list} noun={t("stars.noun")} empty={t("stars.empty")} />
      </section>
    </Page>
  );
}
