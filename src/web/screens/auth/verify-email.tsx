import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { recheckSession, signedIn } from "../../lib/session";

/** The link mailed at registration: /auth/verify-email?token=… confirms the address on opening. */
export function VerifyEmail() {
  const { query } = useLocation();
  const token = query.token ?? "";
  const [state, setState] = useState<"working" | "done" | "failed">(token ? "working" : "failed");
  const [error, setError] = useState<string | null>(
    token ? null : "This link has no token. Open the link from the e-mail again.",
  );

  useEffect(() => {
    if (!token) return;
    api
      .post("/auth/email/verify", { token })
      .then(() => {
        setState("done");
        if (signedIn.value) void recheckSession();
      })
      .catch((err) => {
        setState("failed");
        setError(describeError(err));
      });
  }, [token]);

  return (
    <Page title="Confirm your e-mail address">
      <div class="card">
        {state === "working" && <Loading label="Confirming…" />}
        {state === "done" && (
          <p role="status">
            Your e-mail address is confirmed. <a href="/">Continue</a>
          </p>
        )}
        {state === "failed" && (
          <>
            <FormError message={error} />
            <p>Links work once and for a limited time. Signed in, you can ask for a new one in your settings.</p>
          </>
        )}
      </div>
    </Page>
  );
}
