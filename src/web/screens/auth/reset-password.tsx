import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { Field, FormError } from "../../components/field";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";

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
    <Page title="Set a new password">
      {done ? (
        <div class="card">
          <p role="status">Your password is changed and every session was signed out.</p>
          <p>
            <a href="/">Sign in with the new password</a>
          </p>
        </div>
      ) : !token ? (
        <div class="card">
          <FormError message="This link has no token. Open the link from the e-mail again." />
        </div>
      ) : (
        <form class="card form" onSubmit={submit}>
          <Field
            label="New password"
            type="password"
            value={password}
            onValue={setPassword}
            autoComplete="new-password"
            hint="At least 8 characters."
            required
            error={apiError?.field("newPassword")}
          />
          <Field
            label="Repeat the new password"
            type="password"
            value={confirm}
            onValue={setConfirm}
            autoComplete="new-password"
            required
            error={mismatch ? "The two passwords differ." : undefined}
          />
          <FormError
            message={
              tokenError
                ? `This link ${tokenError}. Ask for a new one from the sign-in screen.`
                : error && !apiError?.field("newPassword")
                  ? describeError(error)
                  : null
            }
          />
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              Set the password
            </button>
            <a href="/auth/forgot-password">Ask for a new link</a>
          </div>
        </form>
      )}
    </Page>
  );
}
