import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { account } from "../../lib/session";
import type { QrRequest, QrStatus } from "../../lib/types";
import { t } from "../../lib/i18n";
import { Sentence } from "../../components/sentence";

/** "Chrome on Linux" from a User-Agent string; the raw string when nothing is recognised. */
export function describeDevice(userAgent: string): string {
  const browser = /Edg\//.test(userAgent)
    ? "Edge"
    : /Firefox\//.test(userAgent)
      ? "Firefox"
      : /Chrom(e|ium)\//.test(userAgent)
        ? "Chrome"
        : /Safari\//.test(userAgent)
          ? "Safari"
          : null;
  const os = /Android/.test(userAgent)
    ? "Android"
    : /iPhone|iPad/.test(userAgent)
      ? "iOS"
      : /Windows/.test(userAgent)
        ? "Windows"
        : /Mac OS X/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : null;
  if (browser && os) return t("auth.qrApprove.browserOn", { browser, os });
  return browser ?? os ?? (userAgent || t("auth.qrApprove.unknownDevice"));
}

/** /auth/link?t=…: the signed-in person sees which device asks to sign in as them, and approves or refuses. */
export function QrApprove() {
  const { query } = useLocation();
  const token = query.t ?? "";
  const [request, setRequest] = useState<QrRequest | null>(null);
  const [outcome, setOutcome] = useState<"approved" | "refused" | null>(null);
  const [error, setError] = useState<string | null>(token ? null : t("auth.qrApprove.noCode"));
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!token) return;
    api
      .get<QrRequest>("/auth/qr/status", { token })
      .then(setRequest)
      .catch((err) => setError(describeError(err)));
  }, [token]);

  async function decide(approve: boolean) {
    setBusy(true);
    setError(null);
    try {
      await api.post(approve ? "/auth/qr/approve" : "/auth/qr/refuse", { token });
      setOutcome(approve ? "approved" : "refused");
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  const me = account.value!;
  return (
    <Page title={t("auth.qrApprove.title")}>
      <div class="card">
        {!request && !error && <Loading />}
        {request && !outcome && request.status === "PENDING" && (
          <>
            <p>
              <Sentence
                text={
                  request.device
                    ? t("auth.qrApprove.asks", {
                        ip: request.device.ip,
                        time: formatDateTime(request.device.requestedAt),
                      })
                    : t("auth.qrApprove.asksUnknown")
                }
                parts={{
                  device: request.device && <strong>{describeDevice(request.device.userAgent)}</strong>,
                  user: <strong>@{me.username}</strong>,
                }}
              />
            </p>
            <div class="actions">
              <button type="button" class="primary" disabled={busy} onClick={() => decide(true)}>
                {t("auth.qrApprove.approve")}
              </button>
              <button type="button" disabled={busy} onClick={() => decide(false)}>
                {t("auth.qrApprove.refuse")}
              </button>
            </div>
          </>
        )}
        {request && !outcome && request.status !== "PENDING" && (
          <FormError message={request.status === "EXPIRED" ? t("auth.qrApprove.expired") : t("auth.qr.claimed")} />
        )}
        {outcome && (
          <p role="status">
            {outcome === "approved" ? t("auth.qrApprove.approved") : t("auth.qrApprove.refused")}{" "}
            <a href="/">{t("auth.qrApprove.toFeed")}</a>
          </p>
        )}
        <FormError message={error} />
      </div>
    </Page>
  );
}
