import { useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { fieldMessage, Section } from "./section";

/** Changing the password (the current one first); other devices are signed out by the server. */
export function PasswordChange({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const { busy, error, apiError, run } = useAction();
  const submit = run(async () => {
    setDone(false);
    setMismatch(next !== repeat);
    if (next !== repeat) return;
    await api.post("/auth/password/change", { currentPassword: current, newPassword: next });
    setCurrent("");
    setNext("");
    setRepeat("");
    setDone(true);
    onChanged();
  });
  const currentError = apiError?.field("currentPassword");
  const nextError = apiError?.field("newPassword");
  return (
    <Section title="Password">
      <form class="form" onSubmit={submit}>
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onValue={setCurrent}
          error={fieldMessage("Current password", currentError)}
        />
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          hint="At least 8 characters."
          value={next}
          onValue={setNext}
          error={fieldMessage("New password", nextError)}
        />
        <Field
          label="Repeat the new password"
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
          onValue={setRepeat}
          error={mismatch ? "The two passwords differ." : undefined}
        />
        <FormError message={error && !currentError && !nextError ? describeError(error) : null} />
        <Notice message={done ? "Your password is changed. Your other devices were signed out." : null} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Change the password
          </button>
        </div>
      </form>
    </Section>
  );
}
