import { useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { PersonField } from "../../components/people-picker";
import { api, describeError } from "../../lib/api";
import { formatNumber } from "../../lib/format";
import { useAction } from "../../lib/use-action";

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
    setSent(
      `You gave ${formatNumber(r.gift.amount)} ${r.gift.amount === 1 ? "star" : "stars"} to @${r.gift.to.username}.`,
    );
    setAmount("");
    setNote("");
  });
  const usernameError =
    apiError?.code === "NOT_FOUND"
      ? "Nobody has this username."
      : apiError?.code === "FORBIDDEN"
        ? apiError.message
        : apiError?.field("username");
  const amountError =
    apiError?.code === "INSUFFICIENT_BALANCE" ? "Your balance is too low for this amount." : apiError?.field("amount");
  const noteError = apiError?.field("note");
  const shown = usernameError || amountError || noteError;
  return (
    <form class="card form" aria-labelledby="gift-title" onSubmit={submit}>
      <h2 id="gift-title">Give stars</h2>
      <PersonField
        label="To (username)"
        required
        value={username}
        onValue={setUsername}
        error={usernameError && (/^[a-z]/.test(usernameError) ? `The username: ${usernameError}.` : usernameError)}
      />
      <Field
        label="Amount"
        type="number"
        inputMode="numeric"
        required
        value={amount}
        onValue={setAmount}
        error={amountError && (/^[a-z]/.test(amountError) ? `The amount ${amountError}.` : amountError)}
      />
      <Field label="Note (optional)" maxLength={200} value={note} onValue={setNote} error={noteError} />
      <FormError message={error && !shown ? describeError(error) : null} />
      <Notice message={sent} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Give
        </button>
      </div>
    </form>
  );
}
