import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { recheckSession, signedIn } from "../../lib/session";
import { t } from "../../lib/i18n";

/** The link mailed at registration: /auth/verify-email?token=… confirms the address on opening. */
export function VerifyEmail() {
  const { query } = useLocation();
  const token = query.token ?? "";
  const [state, setState] = useState<"working" | "done" | "failed">(token ? "working" : "failed");
  const [error, setError] = useState<string | null>(token ? null : t("auth.noToken"));

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
    <Page title={t("auth.verify.title")}>
      <div class="card">
        {state === "working" && <Loading label={t("auth.verify.working")} />}
        {state === "done" && (
          <p role="status">
            {t("auth.verify.done")} <a href="/">{t("auth.verify.continue")}</a>
          </p>
        )}
        {state === "failed" && (
          <>
            <FormError message={error} />
            <p>{t("auth.verify.failed")}</p>
          </>
        )}
      </div>
    </Page>
  );
}
