import { useState } from "preact/hooks";
import { Field, FormError } from "../../components/field";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { t } from "../../lib/i18n";

/** Asks for a reset link by e-mail; the answer is the same whether or not the address has an account. */
export function ForgotPassword() {
  const [email, setEmail] = useState("");
  const [sent, setSent] = useState(false);
  const { busy, error, apiError, run } = useAction();
  const submit = run(async () => {
    await api.post("/auth/password/forgot", { email });
    setSent(true);
  });

  const fieldError = apiError?.field("email");
  return (
    <Page title={t("auth.forgot.title")}>
      {sent ? (
        <div class="card">
          <p role="status">{t("auth.forgot.sent", { email })}</p>
          <p>
            <a href="/">{t("auth.backToSignIn")}</a>
          </p>
        </div>
      ) : (
        <form class="card form" onSubmit={submit}>
          <p>{t("auth.forgot.intro")}</p>
          <Field
            label={t("auth.email")}
            type="email"
            value={email}
            onValue={setEmail}
            autoComplete="email"
            required
            error={fieldError}
          />
          <FormError message={error && !fieldError ? describeError(error) : null} />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {t("auth.forgot.submit")}
            </button>
            <a href="/">{t("auth.backToSignIn")}</a>
          </div>
        </form>
      )}
    </Page>
  );
}
