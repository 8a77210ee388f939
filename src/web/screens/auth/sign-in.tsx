import { useState } from "preact/hooks";
import { Field, FormError } from "../../components/field";
import { InstanceIntro } from "../../components/instance";
import { Page } from "../../components/page";
import { api, ApiError, describeError } from "../../lib/api";
import { sessionStarted } from "../../lib/session";
import type { Account } from "../../lib/types";
import { QrSignIn } from "./qr-sign-in";
import { t } from "../../lib/i18n";

/** The two-factor steps the server asks for, each with its help text. */
const TWO_FACTOR = {
  TWO_FACTOR_REQUIRED: () => t("auth.signIn.codeFromApp"),
  TWO_FACTOR_EMAIL_REQUIRED: () => t("auth.signIn.codeByEmail"),
  TWO_FACTOR_TELEGRAM_REQUIRED: () => t("auth.signIn.codeByChat"),
} as Record<string, () => string>;

/**
 * Sign in with e-mail and password, then the two-factor step when the account has it
 * (a code from an app, an e-mail or a chat message, or a recovery code). Also offers QR sign-in.
 */
export function SignIn() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [step, setStep] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | Error | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = step ? { email, password, twoFactorCode: code.trim() } : { email, password };
      const { account } = await api.post<{ account: Account }>("/auth/login", body);
      sessionStarted(account);
    } catch (err) {
      if (err instanceof ApiError && TWO_FACTOR[err.code]) {
        setStep(err.code);
        setCode("");
      } else setError(err as Error);
    } finally {
      setBusy(false);
    }
  }

  const apiError = error instanceof ApiError ? error : null;
  const formMessage =
    error && !(apiError && Object.keys(apiError.fieldErrors).length) ? describeError(error) : apiError?.field("body");
  return (
    <Page title={t("auth.signIn.title")}>
      <InstanceIntro />
      <div class="auth-layout">
        <form class="card form" onSubmit={submit} noValidate={false}>
          {step ? (
            <>
              <p id="two-factor-help">{TWO_FACTOR[step]?.()}</p>
              <Field
                label={t("auth.signIn.code")}
                hint={t("auth.signIn.codeHint")}
                value={code}
                onValue={setCode}
                autoComplete="one-time-code"
                inputMode="text"
                required
                autoFocus
                error={
                  apiError?.code === "TWO_FACTOR_INVALID_CODE"
                    ? t("auth.signIn.wrongCode")
                    : apiError?.field("twoFactorCode")
                }
              />
              <FormError message={apiError?.code === "TWO_FACTOR_INVALID_CODE" ? null : formMessage} />
              <div class="actions">
                <button type="submit" class="primary" disabled={busy}>
                  {t("auth.signIn.verify")}
                </button>
                <button type="button" onClick={() => (setStep(null), setError(null))}>
                  {t("common.back")}
                </button>
              </div>
            </>
          ) : (
            <>
              <Field
                label={t("auth.email")}
                type="email"
                value={email}
                onValue={setEmail}
                autoComplete="username"
                required
                error={apiError?.field("email")}
              />
              <Field
                label={t("auth.password")}
                type="password"
                value={password}
                onValue={setPassword}
                autoComplete="current-password"
                required
                error={apiError?.field("password")}
              />
              <FormError message={formMessage} />
              <div class="actions">
                <button type="submit" class="primary" disabled={busy}>
                  {t("auth.signIn.submit")}
                </button>
                <a href="/auth/forgot-password">{t("auth.signIn.forgot")}</a>
              </div>
              <p>
                {t("auth.signIn.newHere")} <a href="/auth/register">{t("nav.register")}</a>
              </p>
            </>
          )}
        </form>
        <QrSignIn />
      </div>
    </Page>
  );
}
