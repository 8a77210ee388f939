import { useCallback, useState } from "preact/hooks";
import { Notice } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { api } from "../../lib/api";
import { formatDateTime, formatRelative } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import { REASON_LABEL } from "../../lib/reports";
import type { ReportAction, ReportGroup, ReportGroupPage } from "../../lib/types";
import { ActionDialog, type PendingAction } from "./action-dialog";
import { refreshOpenReports } from "./open-reports";

type Status = "open" | "resolved";
/** A group keyed by its newest report, which resolves it. */
type Item = ReportGroup & { id: string };

const DONE: Record<ReportAction, string> = {
  dismiss: "dismissed",
  "remove-content": "content removed",
  "block-posting": "posting blocked",
  "disable-account": "account disabled",
  "disable-bot": "bot blocked",
};

const NOTE_FIELD = { name: "note", label: "Note for the audit log (optional)" };

/** Reports: the moderation queue, one card per reported target with its reports and the actions. */
export function Reports() {
  const [status, setStatus] = useState<Status>("open");
  const [pending, setPending] = useState<PendingAction | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<ReportGroupPage>("/admin/reports", { status, cursor, limit: 20 });
      return { items: r.groups.map((g) => ({ ...g, id: g.reports[0]!.id })), nextCursor: r.pageInfo.nextCursor };
    },
    [status],
  );
  const list = usePagedList<Item>(`reports-${status}`, load);

  const resolve = (g: Item, action: ReportAction, ask: Omit<PendingAction, "run">) =>
    setPending({
      ...ask,
      fields: [...(ask.fields ?? []), NOTE_FIELD],
      run: async (values) => {
        const r = await api.post<{ resolved: number }>(`/admin/reports/${encodeURIComponent(g.id)}/resolve`, {
          action,
          ...(values.minutes !== undefined ? { minutes: Number(values.minutes) } : {}),
          ...(values.note?.trim() ? { note: values.note.trim() } : {}),
        });
        list.setItems((items) => items.filter((i) => i.id !== g.id));
        setDone(`${g.target.label}: ${DONE[action]} (${r.resolved} report${r.resolved === 1 ? "" : "s"} resolved).`);
        void refreshOpenReports();
      },
    });

  return (
    <>
      <section class="admin-section" aria-labelledby="reports-heading">
        <h2 id="reports-heading">Reports</h2>
        <div class="segmented" role="group" aria-label="Which reports">
          {(["open", "resolved"] as const).map((s) => (
            <button key={s} type="button" aria-pressed={status === s} onClick={() => (setStatus(s), setDone(null))}>
              {s === "open" ? "Open" : "Resolved"}
            </button>
          ))}
        </div>
        <Notice message={done} />
        {list.items.length > 0 && (
          <ul class="admin-list report-groups">
            {list.items.map((g) => (
              <ReportCard key={g.id} group={g} onResolve={(action, ask) => resolve(g, action, ask)} />
            ))}
          </ul>
        )}
        <ListFooter
          list={list}
          noun="reports"
          empty={status === "open" ? "No open reports. Nothing waits for you." : "No report has been resolved yet."}
        />
      </section>
      <ActionDialog action={pending} onClose={() => setPending(null)} />
    </>
  );
}

/** Where the reported content was, as a link when an administrator can open it. */
function Context({ g }: { g: ReportGroup }) {
  const t = g.target;
  if (t.type === "post" && t.present) return <a href={`/posts/${t.id}`}>Open the post</a>;
  if (t.type === "comment" && t.context?.postId)
    return <a href={`/posts/${t.context.postId}`}>Open the post it is on</a>;
  if (t.type === "message")
    return (
      <span class="muted">
        In a {t.context?.chatType === "group" ? "group" : "private chat"}: the text as it was when reported
      </span>
    );
  if (t.type === "user" || t.type === "bot") return <a href={`/users/${t.account.username}`}>Open the profile</a>;
  return null;
}

function ReportCard({
  group: g,
  onResolve,
}: {
  group: Item;
  onResolve: (action: ReportAction, ask: Omit<PendingAction, "run">) => void;
}) {
  const t = g.target;
  const who = `@${t.account.username}`;
  const headingId = `report-${g.id}`;
  const removable = t.present && t.type !== "user" && t.type !== "bot";
  const person = !t.account.isBot;
  return (
    <li class="admin-item card report-group" aria-labelledby={headingId}>
      <div class="admin-item-head">
        <h3 id={headingId}>{t.label}</h3>
        <ul class="badges" aria-label="State">
          <li>
            {g.reportCount} report{g.reportCount === 1 ? "" : "s"}
          </li>
          {!t.present && <li class="bad">No longer there</li>}
          {t.account.disabled && <li class="bad">Account disabled</li>}
          {t.account.postingBlockedUntil && (
            <li class="bad">Posting blocked until {formatDateTime(t.account.postingBlockedUntil)}</li>
          )}
        </ul>
      </div>
      <blockquote class="reported-content">{t.text || <span class="muted">(no text)</span>}</blockquote>
      {t.media.length > 0 && (
        <ul class="reported-media">
          {t.media.map((m, i) =>
            m.url ? (
              <li key={i}>
                <a href={m.url} target="_blank" rel="noopener">
                  Attachment {i + 1}
                  {m.kind ? ` (${m.kind})` : ""}
                </a>
              </li>
            ) : null,
          )}
        </ul>
      )}
      <p>
        <Context g={g} />
      </p>
      <ul class="report-list" aria-label="Reports">
        {g.reports.map((r) => (
          <li key={r.id}>
            <span>
              <strong>@{r.reporter.username}</strong>: {REASON_LABEL[r.reason]}
            </span>{" "}
            <time class="muted" dateTime={r.createdAt} title={formatDateTime(r.createdAt)}>
              {formatRelative(r.createdAt)}
            </time>
            {r.comment && <q>{r.comment}</q>}
          </li>
        ))}
      </ul>
      {g.resolution ? (
        <p>
          Resolved by @{g.resolution.resolver.username}: {DONE[g.resolution.action]}
          {g.resolution.resolvedAt && ` on ${formatDateTime(g.resolution.resolvedAt)}`}
          {g.resolution.note && ` (${g.resolution.note})`}
        </p>
      ) : (
        <div class="actions" role="group" aria-label={`Actions on ${t.label}`}>
          <button
            type="button"
            class="small"
            onClick={() =>
              onResolve("dismiss", {
                title: `Dismiss the reports of ${t.label}`,
                text: "Nothing changes for the content or the account; the reporters hear that it was reviewed.",
                confirm: "Dismiss",
              })
            }
          >
            Dismiss
          </button>
          {removable && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                onResolve("remove-content", {
                  title: `Remove ${t.label}`,
                  text: `The ${t.type} disappears for everyone. This cannot be undone.`,
                  confirm: "Remove",
                  danger: true,
                })
              }
            >
              Remove {t.type}
            </button>
          )}
          {person && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                onResolve("block-posting", {
                  title: `Block posting by ${who}`,
                  text: `${who} cannot post, repost or comment for this long.`,
                  confirm: "Block posting",
                  danger: true,
                  fields: [{ name: "minutes", label: "Minutes", type: "number", initial: "1440", required: true }],
                })
              }
            >
              Block posting…
            </button>
          )}
          {person && !t.account.disabled && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                onResolve("disable-account", {
                  title: `Disable ${who}`,
                  text: `${who} is signed out everywhere and cannot sign in until an administrator enables the account.`,
                  confirm: "Disable account",
                  danger: true,
                })
              }
            >
              Disable account
            </button>
          )}
          {!person && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                onResolve("disable-bot", {
                  title: `Block the bot ${who}`,
                  text: `${who} stops working: its token is refused and its owner cannot turn it back on.`,
                  confirm: "Block the bot",
                  danger: true,
                })
              }
            >
              Disable bot
            </button>
          )}
        </div>
      )}
    </li>
  );
}
