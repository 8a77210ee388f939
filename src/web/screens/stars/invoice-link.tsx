import { useRoute } from "preact-iso";
import { useEffect, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { PaymentSheet, starBalance, useStarBalance } from "../messages/payment-sheet";
import type { InvoiceLink as InvoiceLinkAnswer } from "../../lib/types";
import { t } from "../../lib/i18n";
import { Sentence } from "../../components/sentence";

/**
 * An invoice link a bot made (createInvoiceLink): the invoice, the bot that takes the payment,
 * and Pay. A link may be paid again; each payment lands, with its receipt, in the chat with the bot.
 */
export function InvoiceLink() {
  const { params } = useRoute();
  const slug = params.slug ?? "";
  const [link, setLink] = useState<InvoiceLinkAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [paying, setPaying] = useState(false);
  const [chatId, setChatId] = useState<string | null>(null);
  useStarBalance(true);
  useEffect(() => {
    setLink(null);
    setError(null);
    api
      .get<InvoiceLinkAnswer>(`/social/invoice-links/${encodeURIComponent(slug)}`)
      .then(setLink, (err) => setError(describeError(err)));
  }, [slug]);

  if (error) {
    return (
      <Page title={t("stars.invoice.title")}>
        <FormError message={error} />
      </Page>
    );
  }
  if (!link) {
    return (
      <Page title={t("stars.invoice.title")}>
        <Loading />
      </Page>
    );
  }
  const { invoice, bot } = link;
  const balance = starBalance.value;
  const botName = bot.displayName || `@${bot.username}`;
  return (
    <Page title={invoice.title}>
      <div class="invoice-link">
        <p>
          <Sentence text={t("stars.invoice.from")} parts={{ bot: <a href={`/users/${bot.username}`}>{botName}</a> }} />
        </p>
        {invoice.description && <p>{invoice.description}</p>}
        {invoice.prices && invoice.prices.length > 1 && (
          <ul class="price-lines" aria-label={t("stars.invoice.price")}>
            {invoice.prices.map((p, i) => (
              <li key={i}>
                {p.label}: ★ {p.amount}
              </li>
            ))}
          </ul>
        )}
        <p class="invoice-price">{t("stars.invoice.total", { amount: invoice.totalAmount })}</p>
        <p>{t("stars.invoice.balance", { amount: balance ?? "…" })}</p>
        <div class="dialog-actions">
          <button type="button" class="primary" onClick={() => setPaying(true)}>
            {t("stars.invoice.pay", { amount: invoice.totalAmount })}
          </button>
        </div>
        {chatId && (
          <p>
            <a href={`/dashboard/messages/${chatId}`}>{t("stars.invoice.openChat", { name: botName })}</a>
          </p>
        )}
      </div>
      <PaymentSheet
        payable={paying ? { invoice, payPath: `/social/invoice-links/${encodeURIComponent(slug)}/pay` } : null}
        onClose={() => setPaying(false)}
        onPaid={(r) => setChatId(r.conversationId ?? null)}
      />
    </Page>
  );
}
