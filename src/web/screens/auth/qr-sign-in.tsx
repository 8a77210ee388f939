import { useEffect, useRef, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { QrCode } from "../../components/qr-code";
import { api, describeError } from "../../lib/api";
import { sessionStarted } from "../../lib/session";
import type { Account, QrStart, QrStatus } from "../../lib/types";
import { t } from "../../lib/i18n";

const ENDED: Partial<Record<QrStatus, () => string>> = {
  EXPIRED: () => t("auth.qr.expired"),
  REFUSED: () => t("auth.qr.refused"),
  CLAIMED: () => t("auth.qr.claimed"),
};

/** Signing in without a password: a signed-in device scans this code (or opens its link) and approves. */
export function QrSignIn() {
  const [request, setRequest] = useState<QrStart | null>(null);
  const [status, setStatus] = useState<QrStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  async function start() {
    clearTimeout(timer.current);
    setError(null);
    try {
      const started = await api.post<QrStart>("/auth/qr/start");
      setRequest(started);
      setStatus("PENDING");
      poll(started);
    } catch (err) {
      setError(describeError(err));
    }
  }

  function poll(req: QrStart) {
    timer.current = setTimeout(async () => {
      try {
        const { status: now } = await api.get<{ status: QrStatus }>("/auth/qr/status", { token: req.token });
        setStatus(now);
        if (now === "APPROVED") {
          const { account } = await api.post<{ account: Account }>("/auth/qr/claim", { token: req.token });
          sessionStarted(account);
          return;
        }
        if (now === "PENDING") poll(req);
      } catch (err) {
        setError(describeError(err));
      }
    }, req.pollIntervalMs);
  }

  return (
    <section class="card qr-sign-in" aria-labelledby="qr-title">
      <h2 id="qr-title">{t("auth.qr.title")}</h2>
      {!request ? (
        <>
          <p>{t("auth.qr.intro")}</p>
          <button type="button" onClick={start}>
            {t("auth.qr.show")}
          </button>
        </>
      ) : (
        <>
          <QrCode text={request.link} label={t("auth.qr.code")} />
          <div class="field">
            <label for="qr-link">{t("auth.qr.link")}</label>
            <input id="qr-link" readOnly value={request.link} onFocus={(e) => e.currentTarget.select()} />
          </div>
          <p role="status">
            {status === "PENDING"
              ? t("auth.qr.waiting")
              : status === "APPROVED"
                ? t("auth.qr.approved")
                : (status && ENDED[status]?.()) || ""}
          </p>
          {status && ENDED[status] && (
            <button type="button" onClick={start}>
              {t("auth.qr.showNew")}
            </button>
          )}
        </>
      )}
      <FormError message={error} />
    </section>
  );
}
