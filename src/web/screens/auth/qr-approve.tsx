import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { account } from "../../lib/session";
import type { QrRequest, QrStatus } from "../../lib/types";

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
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? (userAgent || "An unknown device");
}

/** /auth/link?t=…: the signed-in person sees which device asks to sign in as them, and approves or refuses. */
export function QrApprove() {
  const { query } = useLocation();
  const token = query.t ?? "";
  const [request, setRequest] = useState<QrRequest | null>(null);
  const [outcome, setOutcome] = useState<"approved" | "refused" | null>(null);
  const [error, setError] = useState<string | null>(token ? null : "This link has no code. Scan the QR code again.");
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
    <Page title="Sign in on another device">
      <div class="card">
        {!request && !error && <Loading />}
        {request && !outcome && request.status === "PENDING" && (
          <>
            <p>
              {request.device ? (
                <>
                  <strong>{describeDevice(request.device.userAgent)}</strong> (address {request.device.ip}, asked{" "}
                  {formatDateTime(request.device.requestedAt)})
                </>
              ) : (
                "A device"
              )}{" "}
              asks to sign in as <strong>@{me.username}</strong>. Approve only if it is yours and you just showed this
              code on it.
            </p>
            <div class="actions">
              <button type="button" class="primary" disabled={busy} onClick={() => decide(true)}>
                Approve
              </button>
              <button type="button" disabled={busy} onClick={() => decide(false)}>
                Refuse
              </button>
            </div>
          </>
        )}
        {request && !outcome && request.status !== "PENDING" && (
          <FormError
            message={
              request.status === "EXPIRED"
                ? "This code has expired. Show a new one on the other device."
                : "This code was already used."
            }
          />
        )}
        {outcome && (
          <p role="status">
            {outcome === "approved"
              ? "Approved: the other device is signing in now."
              : "Refused: the other device was not signed in."}{" "}
            <a href="/">Back to the feed</a>
          </p>
        )}
        <FormError message={error} />
      </div>
    </Page>
  );
}
