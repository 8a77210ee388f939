import { useEffect, useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { ActionDialog, type PendingAction } from "./action-dialog";
import type { AdminBot } from "../../lib/types";

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

  const ask = (b: AdminBot, action: string, title: string, text: string, danger = false) => {
    setDone(null);
    setPending({
      title,
      text,
      confirm: title.split(" ")[0]!,
      danger,
      run: async () => {
        const r = await api.post<{ bot: AdminBot }>(`/admin/bots/${encodeURIComponent(b.username)}/${action}`);
        setBots((list) => list!.map((x) => (x.id === r.bot.id ? r.bot : x)));
        setDone(`@${b.username}: ${title.split(" ")[0]!.toLowerCase()}ed.`);
      },
    });
  };

  return (
    <section class="admin-section" aria-labelledby="bots-heading">
      <h2 id="bots-heading">Bots</h2>
      <FormError message={error} />
      <Notice message={done} />
      {!bots && !error && <Loading label="Loading bots…" />}
      {bots?.length === 0 && <p class="empty">No bots on this instance yet.</p>}
      <ul class="admin-list" aria-label="Bots">
        {bots?.map((b) => (
          <li key={b.id} class="admin-item card" aria-labelledby={`bot-${b.id}`}>
            <div class="admin-item-head">
              <h3 id={`bot-${b.id}`}>@{b.username}</h3>
              <span class="muted">{b.name}</span>
              <ul class="badges" aria-label="State">
                {!b.enabled && <li class="bad">Disabled</li>}
                {b.blocked && <li class="bad">Blocked by moderation</li>}
              </ul>
            </div>
            <p class="muted">
              owner @{b.owner ?? "?"} · created {formatDateTime(b.createdAt)}
            </p>
            <div class="actions" role="group" aria-label={`Actions for @${b.username}`}>
              {b.enabled ? (
                <button
                  type="button"
                  class="small"
                  onClick={() =>
                    ask(
                      b,
                      "disable",
                      `Disable @${b.username}`,
                      "Its token is refused until it is enabled; its owner can enable it again.",
                      true,
                    )
                  }
                >
                  Disable
                </button>
              ) : (
                <button
                  type="button"
                  class="small"
                  onClick={() => ask(b, "enable", `Enable @${b.username}`, "Its token works again.")}
                >
                  Enable
                </button>
              )}
              {b.blocked ? (
                <button
                  type="button"
                  class="small"
                  onClick={() => ask(b, "unblock", `Unblock @${b.username}`, "The moderation block is lifted.")}
                >
                  Unblock
                </button>
              ) : (
                <button
                  type="button"
                  class="small danger"
                  onClick={() =>
                    ask(
                      b,
                      "block",
                      `Block @${b.username}`,
                      "Its token is refused, it gets no updates and its public card is gone; only an administrator can lift this.",
                      true,
                    )
                  }
                >
                  Block
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
