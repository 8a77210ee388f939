import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { Field, FormError } from "../../components/field";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { t } from "../../lib/i18n";

/** The mailed link /auth/reset-password?token=…: sets a new password (every session ends). */
export function ResetPassword() {
  const { query } = useLocation();
  const token = query.token ?? "";
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [done, setDone] = useState(false);
  const [mismatch, setMismatch] = useState(false);
  const { busy, error, apiError, run } = useAction();
  const submit = run(async () => {
    setMismatch(password !== confirm);
    if (password !== confirm) return;
    await api.post("/auth/password/reset", { token, newPassword: password });
    setDone(true);
  });

  const tokenError = apiError?.field("token");
  return (
    <Page title={t("auth.reset.title")}>
      {done ? (
        <div class="card">
          <p role="status">{t("auth.reset.done")}</p>
          <p>
            <a href="/">{t("auth.reset.signIn")}</a>
          </p>
        </div>
      ) : !token ? (
        <div class="card">
          <FormError message={t("auth.noToken")} />
        </div>
      ) : (
        <form class="card form" onSubmit={submit}>
          <Field
            label={t("auth.reset.password")}
            type="password"
            value={password}
            onValue={setPassword}
            autoComplete="new-password"
            hint={t("auth.passwordHint")}
            required
            error={apiError?.field("newPassword")}
          />
          <Field
            label={t("auth.reset.repeat")}
            type="password"
            value={confirm}
            onValue={setConfirm}
            autoComplete="new-password"
            required
            error={mismatch ? t("auth.reset.mismatch") : undefined}
          />
          <FormError
            message={
              tokenError
                ? t("auth.reset.badLink", { reason: tokenError })
                : error && !apiError?.field("newPassword")
                  ? describeError(error)
                  : null
            }
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {t("auth.reset.submit")}
            </button>
            <a href="/auth/forgot-password">{t("auth.reset.newLink")}</a>
          </div>
        </form>
      )}
    </Page>
  );
}
