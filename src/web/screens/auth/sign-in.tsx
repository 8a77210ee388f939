import { useState } from "preact/hooks";
import { Field, FormError } from "../../components/field";
import { InstanceIntro } from "../../components/instance";
import { Page } from "../../components/page";
import { api, ApiError, describeError } from "../../lib/api";
import { sessionStarted } from "../../lib/session";
import type { Account } from "../../lib/types";
import { QrSignIn } from "./qr-sign-in";

const TWO_FACTOR: Record<string, string> = {
  TWO_FACTOR_REQUIRED: "Enter the six-digit code from your authenticator app.",
  TWO_FACTOR_EMAIL_REQUIRED: "We e-mailed you a six-digit code. Enter it to finish signing in.",
  TWO_FACTOR_TELEGRAM_REQUIRED:
    "A six-digit code was sent to you as a chat message from the system account. Enter it to finish signing in.",
};

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
    <Page title="Sign in">
      <InstanceIntro />
      <div class="auth-layout">
        <form class="card form" onSubmit={submit} noValidate={false}>
          {step ? (
            <>
              <p id="two-factor-help">{TWO_FACTOR[step]}</p>
              <Field
                label="Code"
                hint="Six digits, or one of your recovery codes (xxxxx-xxxxx)."
                value={code}
                onValue={setCode}
                autoComplete="one-time-code"
                inputMode="text"
                required
                autoFocus
                error={
                  apiError?.code === "TWO_FACTOR_INVALID_CODE"
                    ? "That code is not right. Check it and try again."
                    : apiError?.field("twoFactorCode")
                }
              />
              <FormError message={apiError?.code === "TWO_FACTOR_INVALID_CODE" ? null : formMessage} />
              <div class="actions">
                <button type="submit" class="primary" disabled={busy}>
                  Verify
                </button>
                <button type="button" onClick={() => (setStep(null), setError(null))}>
                  Back
                </button>
              </div>
            </>
          ) : (
            <>
              <Field
                label="Email"
                type="email"
                value={email}
                onValue={setEmail}
                autoComplete="username"
                required
                error={apiError?.field("email")}
              />
              <Field
                label="Password"
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
                  Sign in
                </button>
                <a href="/auth/forgot-password">Forgot your password?</a>
              </div>
              <p>
                New here? <a href="/auth/register">Create an account</a>
              </p>
            </>
          )}
        </form>
        <QrSignIn />
      </div>
    </Page>
  );
}
