import { useState } from "preact/hooks";
import { Field, FormError } from "../../components/field";
import { Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";

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
    <Page title="Reset your password">
      {sent ? (
        <div class="card">
          <p role="status">
            If an account uses {email}, a link to set a new password is on its way. It works once, for one hour.
          </p>
          <p>
            <a href="/">Back to sign in</a>
          </p>
        </div>
      ) : (
        <form class="card form" onSubmit={submit}>
          <p>Enter the e-mail address of your account and we will send you a link to set a new password.</p>
          <Field
            label="Email"
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
              Send the link
            </button>
            <a href="/">Back to sign in</a>
          </div>
        </form>
      )}
    </Page>
  );
}
