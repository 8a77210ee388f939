import { useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { PersonField } from "../../components/people-picker";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { t } from "../../lib/i18n";

/** Giving stars to another person (POST /api/stars/gift); the new balance arrives as `stars:balance`. */
export function GiftForm() {
  const [username, setUsername] = useState("");
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [sent, setSent] = useState<string | null>(null);
  const { busy, error, apiError, run } = useAction();
  const submit = run(async () => {
    setSent(null);
    const to = username.trim().replace(/^@/, "");
    const n = Number(amount);
    const r = await api.post<{ gift: { amount: number; to: { username: string } } }>("/stars/gift", {
      username: to,
      amount: n,
      ...(note.trim() ? { note: note.trim() } : {}),
    });
    setSent(t("stars.gift.sent", { count: r.gift.amount, username: r.gift.to.username }));
    setAmount("");
    setNote("");
  });
  const usernameError =
    apiError?.code === "NOT_FOUND"
      ? t("stars.gift.noSuchUser")
      : apiError?.code === "FORBIDDEN"
        ? apiError.message
        : apiError?.field("username");
  const amountError = apiError?.code === "INSUFFICIENT_BALANCE" ? t("stars.gift.tooLow") : apiError?.field("amount");
  const noteError = apiError?.field("note");
  const shown = usernameError || amountError || noteError;
  return (
    <form class="card form" aria-labelledby="gift-title" onSubmit={submit}>
      <h2 id="gift-title">{t("stars.gift.title")}</h2>
      <PersonField
        label={t("stars.gift.to")}
        required
        value={username}
        onValue={setUsername}
        error={
          usernameError &&
          (/^[a-z]/.test(usernameError) ? t("stars.gift.usernameError", { error: usernameError }) : usernameError)
        }
      />
      <Field
        label={t("stars.gift.amount")}
        type="number"
        inputMode="numeric"
        required
        value={amount}
        onValue={setAmount}
        error={
          amountError &&
          (/^[a-z]/.test(amountError) ? t("stars.gift.amountError", { error: amountError }) : amountError)
        }
      />
      <Field label={t("stars.gift.note")} maxLength={200} value={note} onValue={setNote} error={noteError} />
      <FormError message={error && !shown ? describeError(error) : null} />
      <Notice message={sent} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {t("stars.gift.give")}
        </button>
      </div>
    </form>
  );
}
