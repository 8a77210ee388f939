import { useEffect, useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { t } from "../../lib/i18n";
import { useAction } from "../../lib/use-action";
import { ActionDialog, type PendingAction } from "./action-dialog";
import type { AdminInvite } from "../../lib/types";

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
      title: t("admin.invites.revokeTitle"),
      text: t("admin.invites.revokeText"),
      confirm: t("admin.invites.revoke"),
      danger: true,
      run: async () => {
        const r = await api.post<{ invite: AdminInvite }>(`/admin/invites/${encodeURIComponent(invite.code)}/revoke`);
        setInvites((list) => list!.map((x) => (x.code === r.invite.code ? r.invite : x)));
        if (made?.code === invite.code) setMade(null);
        setDone(t("admin.invites.revoked", { code: invite.code }));
      },
    });
  };

  const onField = apiError && Object.keys(apiError.fieldErrors).some((f) => f === "maxUses" || f === "expiresInHours");
  return (
    <section class="admin-section" aria-labelledby="invites-heading">
      <h2 id="invites-heading">{t("admin.invites.heading")}</h2>
      <form class="card form" aria-label={t("admin.invites.new")} onSubmit={create}>
        <p class="hint">{t("admin.invites.hint")}</p>
        <div class="settings-grid">
          <Field
            label={t("admin.invites.maxUses")}
            type="number"
            inputMode="numeric"
            value={maxUses}
            onValue={setMaxUses}
            hint={t("admin.invites.maxUsesHint")}
            required
            error={apiError?.field("maxUses")}
          />
          <Field
            label={t("admin.invites.hours")}
            type="number"
            inputMode="numeric"
            value={hours}
            onValue={setHours}
            hint={t("admin.invites.hoursHint")}
            required
            error={apiError?.field("expiresInHours")}
          />
        </div>
        <FormError message={error && !onField ? describeError(error) : null} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {t("admin.invites.make")}
          </button>
        </div>
        {made && (
          <div role="status">
            <Field label={t("admin.invites.link")} value={made.url} onValue={() => {}} readOnly />
          </div>
        )}
      </form>
      <FormError message={loadError} />
      <Notice message={done} />
      {!invites && !loadError && <Loading label={t("admin.invites.loading")} />}
      {invites?.length === 0 && <p class="empty">{t("admin.invites.empty")}</p>}
      <ul class="admin-list" aria-label={t("admin.invites.heading")}>
        {invites?.map((i) => (
          <li key={i.code} class="admin-item card" aria-labelledby={`invite-${i.code}`}>
            <div class="admin-item-head">
              <h3 id={`invite-${i.code}`}>
                <code>{i.code}</code>
              </h3>
              <ul class="badges" aria-label={t("admin.common.state")}>
                <li class={i.state === "live" ? undefined : "bad"}>{t(`admin.invites.states.${i.state}`)}</li>
              </ul>
            </div>
            <p>
              {t(i.state === "expired" ? "admin.invites.usesExpired" : "admin.invites.usesExpires", {
                uses: i.uses,
                max: i.maxUses,
                date: formatDateTime(i.expiresAt),
              })}
            </p>
            {i.state === "live" && <p>{i.url}</p>}
            <p class="muted">
              {i.createdBy
                ? t("admin.invites.madeBy", { date: formatDateTime(i.createdAt), name: `@${i.createdBy}` })
                : t("admin.invites.madeCli", { date: formatDateTime(i.createdAt) })}
            </p>
            {i.state === "live" && (
              <div class="actions" role="group" aria-label={t("admin.invites.actions", { code: i.code })}>
                <button type="button" class="small danger" onClick={() => askRevoke(i)}>
                  {t("admin.invites.revoke")}
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
