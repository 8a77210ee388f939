import { signal } from "@preact/signals";
import { t } from "../../lib/i18n";
import { useEffect, useState } from "preact/hooks";
import { Dialog } from "../../components/dialog";
import { api, describeError } from "../../lib/api";
import { onRealtime } from "../../lib/realtime";
import type { Invoice } from "../../lib/types";

/** My stars balance, kept live by `stars:balance` while a chat screen is mounted. */
export const starBalance = signal<number | null>(null);

function readStarBalance(): void {
  api.get<{ balance: number }>("/stars/balance").then(
    (r) => (starBalance.value = r.balance),
    () => undefined,
  );
}

/**
 * Keeps starBalance live while mounted; reads it at once when SHOWN_NOW (a screen that shows
 * it from the start). A chat shows it only in the payment sheet, which reads it on opening.
 */
export function useStarBalance(shownNow: boolean): void {
  useEffect(() => {
    if (shownNow) readStarBalance();
    return onRealtime("stars:balance", ({ balance }) => (starBalance.value = balance));
  }, []);
}

/** The answer of a Pay; an invoice link's also names the chat with the bot the payment went to. */
export type PayResult = (
  { status: "paid"; balance: number } | { status: "declined"; errorMessage: string } | { status: "timeout" }
) & { conversationId?: string };

/** What is being paid: the invoice shown, and the API path (below /api) that pays it. */
export interface Payable {
  invoice: Pick<Invoice, "title" | "description" | "totalAmount" | "prices">;
  payPath: string;
}

/**
 * Pay for an invoice (a message's, or an invoice link's): a confirmation with the price and my
 * balance, then the result the server gives once the bot answered its pre-checkout query (or
 * did not in time).
 */
export function PaymentSheet({
  payable,
  onClose,
  onPaid,
}: {
  payable: Payable | null;
  onClose: () => void;
  onPaid?: (result: PayResult) => void;
}) {
  const [stage, setStage] = useState<"confirm" | "paying" | "done">("confirm");
  const [result, setResult] = useState<PayResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setStage("confirm");
    setResult(null);
    setError(null);
    if (payable) readStarBalance();
    // a fresh sheet on each opening: an invoice link can be paid again
  }, [payable?.payPath, !!payable]);
  const inv = payable?.invoice;
  const balance = starBalance.value;

  async function pay() {
    if (!payable) return;
    setStage("paying");
    setError(null);
    try {
      const r = await api.post<PayResult>(payable.payPath);
      if (r.status === "paid") starBalance.value = r.balance;
      setResult(r);
      setStage("done");
      onPaid?.(r);
    } catch (err) {
      setError(describeError(err));
      setStage("confirm");
    }
  }

  return (
    <Dialog
      open={!!payable}
      title={inv ? t("messages.payment.payFor", { title: inv.title }) : t("messages.payment.title")}
      onClose={onClose}
    >
      {inv && (
        <div class="payment-sheet">
          <p>{inv.description}</p>
          {inv.prices && inv.prices.length > 1 && (
            <ul class="price-lines">
              {inv.prices.map((p, i) => (
                <li key={i}>{t("messages.payment.line", { label: p.label, amount: p.amount })}</li>
              ))}
            </ul>
          )}
          <p class="invoice-price">{t("messages.payment.total", { amount: inv.totalAmount })}</p>
          <p>
            {balance === null
              ? t("messages.payment.balanceUnknown")
              : t("messages.payment.balance", { amount: balance })}
          </p>
          {stage !== "done" && (
            <>
              {error && (
                <p class="form-error" role="alert">
                  {error}
                </p>
              )}
              {stage === "paying" && (
                <p role="status" class="notice">
                  <span class="spinner" aria-hidden="true" /> {t("messages.payment.waiting")}
                </p>
              )}
              <div class="dialog-actions">
                <button type="button" onClick={onClose}>
                  {t("common.cancel")}
                </button>
                <button
                  type="button"
                  class="primary"
                  disabled={stage === "paying" || (balance !== null && balance < inv.totalAmount)}
                  onClick={() => void pay()}
                >
                  {t("messages.invoice.pay", { amount: inv.totalAmount })}
                </button>
              </div>
              {balance !== null && balance < inv.totalAmount && (
                <p class="field-error">{t("messages.payment.notEnough")}</p>
              )}
            </>
          )}
          {stage === "done" && result && (
            <>
              <p role="alert" class={`pay-result ${result.status}`}>
                {result.status === "paid"
                  ? t("messages.payment.paid")
                  : result.status === "declined"
                    ? t("messages.payment.declined", { reason: result.errorMessage })
                    : t("messages.payment.timedOut")}
              </p>
              <div class="dialog-actions">
                <button type="button" class="primary" onClick={onClose}>
                  {t("messages.payment.done")}
                </button>
              </div>
            </>
          )}
        </div>
      )}
    </Dialog>
  );
}
