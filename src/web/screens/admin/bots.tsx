import { useEffect, useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { t } from "../../lib/i18n";
import { ActionDialog, type PendingAction } from "./action-dialog";
import type { AdminBot } from "../../lib/types";

type BotAction = "disable" | "enable" | "block" | "unblock";

/** Bots: disable as their owner could, or block by moderation (only an admin lifts that). */
export function Bots() {
  const [bots, setBots] = useState<AdminBot[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<PendingAction | null>(null);
  const [done, setDone] = useState<string | null>(null);
  useEffect(() => {
    api.get<{ bots: AdminBot[] }>("/admin/bots").then(
      (r) => setBots(r.bots),
      (err) => setError(describeError(err)),
    );
  }, []);

  const ask = (b: AdminBot, action: BotAction, danger = false) => {
    const name = `@${b.username}`;
    setDone(null);
    setPending({
      title: t(`admin.bots.${action}.title`, { name }),
      text: t(`admin.bots.${action}.text`),
      confirm: t(`admin.bots.${action}.confirm`),
      danger,
      run: async () => {
        const r = await api.post<{ bot: AdminBot }>(`/admin/bots/${encodeURIComponent(b.username)}/${action}`);
        setBots((list) => list!.map((x) => (x.id === r.bot.id ? r.bot : x)));
        setDone(t(`admin.bots.${action}.done`, { name }));
      },
    });
  };

  return (
    <section class="admin-section" aria-labelledby="bots-heading">
      <h2 id="bots-heading">{t("admin.bots.heading")}</h2>
      <FormError message={error} />
      <Notice message={done} />
      {!bots && !error && <Loading label={t("admin.bots.loading")} />}
      {bots?.length === 0 && <p class="empty">{t("admin.bots.empty")}</p>}
      <ul class="admin-list" aria-label={t("admin.bots.heading")}>
        {bots?.map((b) => (
          <li key={b.id} class="admin-item card" aria-labelledby={`bot-${b.id}`}>
            <div class="admin-item-head">
              <h3 id={`bot-${b.id}`}>@{b.username}</h3>
              <span class="muted">{b.name}</span>
              <ul class="badges" aria-label={t("admin.common.state")}>
                {!b.enabled && <li class="bad">{t("admin.common.disabled")}</li>}
                {b.blocked && <li class="bad">{t("admin.bots.blocked")}</li>}
              </ul>
            </div>
            <p class="muted">
              {t("admin.bots.owner", { owner: b.owner ?? "?", created: formatDateTime(b.createdAt) })}
            </p>
            <div class="actions" role="group" aria-label={t("admin.common.actionsFor", { name: `@${b.username}` })}>
              {b.enabled ? (
                <button type="button" class="small" onClick={() => ask(b, "disable", true)}>
                  {t("admin.bots.disable.confirm")}
                </button>
              ) : (
                <button type="button" class="small" onClick={() => ask(b, "enable")}>
                  {t("admin.bots.enable.confirm")}
                </button>
              )}
              {b.blocked ? (
                <button type="button" class="small" onClick={() => ask(b, "unblock")}>
                  {t("admin.bots.unblock.confirm")}
                </button>
              ) : (
                <button type="button" class="small danger" onClick={() => ask(b, "block", true)}>
                  {t("admin.bots.block.confirm")}
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      <ActionDialog action={pending} onClose={() => setPending(null)} />
    </section>
  );
}
