import { useEffect, useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { useAction } from "../../lib/use-action";
import { ActionDialog, type PendingAction } from "./action-dialog";
import type { AdminInvite } from "../../lib/types";

const STATE_LABEL: Record<AdminInvite["state"], string> = {
  live: "Live",
  revoked: "Revoked",
  expired: "Expired",
  used_up: "Used up",
};

/** Sign-up invites: make one (its link is shown to copy), see each one's uses and expiry, revoke. */
export function Invites() {
  const [invites, setInvites] = useState<AdminInvite[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [maxUses, setMaxUses] = useState("1");
  const [hours, setHours] = useState("168");
  const [made, setMade] = useState<AdminInvite | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [pending, setPending] = useState<PendingAction | null>(null);
  const { busy, error, apiError, run } = useAction();
  useEffect(() => {
    api.get<{ invites: AdminInvite[] }>("/admin/invites").then(
      (r) => setInvites(r.invites),
      (err) => setLoadError(describeError(err)),
    );
  }, []);

  const create = run(async () => {
    setDone(null);
    const { invite } = await api.post<{ invite: AdminInvite }>("/admin/invites", {
      maxUses: Number(maxUses),
      expiresInHours: Number(hours),
    });
    setMade(invite);
    setInvites((list) => [invite, ...(list ?? [])]);
  });

  const askRevoke = (invite: AdminInvite) => {
    setDone(null);
    setPending({
      title: "Revoke this invite",
      text: "Its link and code admit nobody from now on. Accounts already made with it stay.",
      confirm: "Revoke",
      danger: true,
      run: async () => {
        const r = await api.post<{ invite: AdminInvite }>(`/admin/invites/${encodeURIComponent(invite.code)}/revoke`);
        setInvites((list) => list!.map((x) => (x.code === r.invite.code ? r.invite : x)));
        if (made?.code === invite.code) setMade(null);
        setDone(`Invite ${invite.code} revoked.`);
      },
    });
  };

  const onField = apiError && Object.keys(apiError.fieldErrors).some((f) => f === "maxUses" || f === "expiresInHours");
  return (
    <section class="admin-section" aria-labelledby="invites-heading">
      <h2 id="invites-heading">Invites</h2>
      <form class="card form" aria-label="New invite" onSubmit={create}>
        <p class="hint">
          With registration set to “Invite”, people sign up only with a code. A live invite also lets a person past the
          captcha in “Captcha” mode.
        </p>
        <div class="settings-grid">
          <Field
            label="How many accounts it may make"
            type="number"
            inputMode="numeric"
            value={maxUses}
            onValue={setMaxUses}
            hint="1 for one person."
            required
            error={apiError?.field("maxUses")}
          />
          <Field
            label="Works for (hours)"
            type="number"
            inputMode="numeric"
            value={hours}
            onValue={setHours}
            hint="168 hours is a week."
            required
            error={apiError?.field("expiresInHours")}
          />
        </div>
        <FormError message={error && !onField ? describeError(error) : null} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Make an invite
          </button>
        </div>
        {made && (
          <div role="status">
            <Field label="Link of the new invite" value={made.url} onValue={() => {}} readOnly />
          </div>
        )}
      </form>
      <FormError message={loadError} />
      <Notice message={done} />
      {!invites && !loadError && <Loading label="Loading invites…" />}
      {invites?.length === 0 && <p class="empty">No invites yet.</p>}
      <ul class="admin-list" aria-label="Invites">
        {invites?.map((i) => (
          <li key={i.code} class="admin-item card" aria-labelledby={`invite-${i.code}`}>
            <div class="admin-item-head">
              <h3 id={`invite-${i.code}`}>
                <code>{i.code}</code>
              </h3>
              <ul class="badges" aria-label="State">
                <li class={i.state === "live" ? undefined : "bad"}>{STATE_LABEL[i.state]}</li>
              </ul>
            </div>
            <p>
              Used {i.uses} of {i.maxUses} · {i.state === "expired" ? "expired" : "expires"}{" "}
              {formatDateTime(i.expiresAt)}
            </p>
            {i.state === "live" && <p>{i.url}</p>}
            <p class="muted">
              made {formatDateTime(i.createdAt)}
              {i.createdBy ? ` by @${i.createdBy}` : " with the command line"}
            </p>
            {i.state === "live" && (
              <div class="actions" role="group" aria-label={`Actions for invite ${i.code}`}>
                <button type="button" class="small danger" onClick={() => askRevoke(i)}>
                  Revoke
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
      <ActionDialog action={pending} onClose={() => setPending(null)} />
    </section>
  );
}
