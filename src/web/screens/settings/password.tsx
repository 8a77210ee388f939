import { useState } from "preact/hooks";
import { t } from "../../lib/i18n";
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
    <Section title={t("settings.password.title")}>
      <form class="form" onSubmit={submit}>
        <Field
          label={t("settings.password.current")}
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onValue={setCurrent}
          error={fieldMessage(t("settings.password.current"), currentError)}
        />
        <Field
          label={t("settings.password.new")}
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          hint={t("settings.password.newHint")}
          value={next}
          onValue={setNext}
          error={fieldMessage(t("settings.password.new"), nextError)}
        />
        <Field
          label={t("settings.password.repeat")}
          type="password"
          autoComplete="new-password"
          required
          value={repeat}
          onValue={setRepeat}
          error={mismatch ? t("settings.password.differ") : undefined}
        />
        <FormError message={error && !currentError && !nextError ? describeError(error) : null} />
        <Notice message={done ? t("settings.password.changed") : null} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {t("settings.password.submit")}
          </button>
        </div>
      </form>
    </Section>
  );
}
