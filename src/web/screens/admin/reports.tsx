import { useCallback, useState } from "preact/hooks";
import { Notice } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { api } from "../../lib/api";
import { formatDateTime, formatRelative } from "../../lib/format";
import { t } from "../../lib/i18n";
import { usePagedList } from "../../lib/paged";
import { REASON_LABEL } from "../../lib/reports";
import type { ReportAction, ReportGroup, ReportGroupPage } from "../../lib/types";
import { ActionDialog, type PendingAction } from "./action-dialog";
import { refreshOpenReports } from "./open-reports";

type Status = "open" | "resolved";
/** The kinds of content an administrator can remove from a report (a profile or a bot is acted on otherwise). */
const removableType = (type: ReportGroup["target"]["type"]) =>
  type === "comment" || type === "story" || type === "message" ? type : "post";

/** A group keyed by its newest report, which resolves it. */
type Item = ReportGroup & { id: string };

const doneText = (action: ReportAction) => t(`admin.reports.done.${action}`);

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
      fields: [...(ask.fields ?? []), { name: "note", label: t("admin.reports.note") }],
      run: async (values) => {
        const r = await api.post<{ resolved: number }>(`/admin/reports/${encodeURIComponent(g.id)}/resolve`, {
          action,
          ...(values.minutes !== undefined ? { minutes: Number(values.minutes) } : {}),
          ...(values.note?.trim() ? { note: values.note.trim() } : {}),
        });
        list.setItems((items) => items.filter((i) => i.id !== g.id));
        setDone(t("admin.reports.resolved", { label: g.target.label, done: doneText(action), count: r.resolved }));
        void refreshOpenReports();
      },
    });

  return (
    <>
      <section class="admin-section" aria-labelledby="reports-heading">
        <h2 id="reports-heading">{t("admin.reports.heading")}</h2>
        <div class="segmented" role="group" aria-label={t("admin.reports.which")}>
          {(["open", "resolved"] as const).map((s) => (
            <button key={s} type="button" aria-pressed={status === s} onClick={() => (setStatus(s), setDone(null))}>
              {s === "open" ? t("admin.reports.open") : t("admin.reports.resolvedTab")}
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
          noun={t("admin.reports.noun")}
          empty={status === "open" ? t("admin.reports.emptyOpen") : t("admin.reports.emptyResolved")}
        />
      </section>
      <ActionDialog action={pending} onClose={() => setPending(null)} />
    </>
  );
}

/** Where the reported content was, as a link when an administrator can open it. */
function Context({ g }: { g: ReportGroup }) {
  const target = g.target;
  if (target.type === "post" && target.present)
    return <a href={`/posts/${target.id}`}>{t("admin.reports.openPost")}</a>;
  if (target.type === "comment" && target.context?.postId)
    return <a href={`/posts/${target.context.postId}`}>{t("admin.reports.openCommentPost")}</a>;
  if (target.type === "message")
    return (
      <span class="muted">
        {target.context?.chatType === "group" ? t("admin.reports.inGroup") : t("admin.reports.inPrivateChat")}
      </span>
    );
  if (target.type === "user" || target.type === "bot")
    return <a href={`/users/${target.account.username}`}>{t("admin.reports.openProfile")}</a>;
  return null;
}

function ReportCard({
  group: g,
  onResolve,
}: {
  group: Item;
  onResolve: (action: ReportAction, ask: Omit<PendingAction, "run">) => void;
}) {
  const target = g.target;
  const who = `@${target.account.username}`;
  const headingId = `report-${g.id}`;
  const removable = target.present && target.type !== "user" && target.type !== "bot";
  const person = !target.account.isBot;
  return (
    <li class="admin-item card report-group" aria-labelledby={headingId}>
      <div class="admin-item-head">
        <h3 id={headingId}>{target.label}</h3>
        <ul class="badges" aria-label={t("admin.common.state")}>
          <li>{t("admin.reports.count", { count: g.reportCount })}</li>
          {!target.present && <li class="bad">{t("admin.reports.gone")}</li>}
          {target.account.disabled && <li class="bad">{t("admin.reports.accountDisabled")}</li>}
          {target.account.postingBlockedUntil && (
            <li class="bad">
              {t("admin.accounts.postingBlockedUntil", { until: formatDateTime(target.account.postingBlockedUntil) })}
            </li>
          )}
        </ul>
      </div>
      <blockquote class="reported-content">
        {target.text || <span class="muted">{t("admin.content.noText")}</span>}
      </blockquote>
      {target.media.length > 0 && (
        <ul class="reported-media">
          {target.media.map((m, i) =>
            m.url ? (
              <li key={i}>
                <a href={m.url} target="_blank" rel="noopener">
                  {m.kind
                    ? t("admin.reports.attachmentKind", { n: i + 1, kind: m.kind })
                    : t("admin.reports.attachment", { n: i + 1 })}
                </a>
              </li>
            ) : null,
          )}
        </ul>
      )}
      <p>
        <Context g={g} />
      </p>
      <ul class="report-list" aria-label={t("admin.reports.heading")}>
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
          {t("admin.reports.resolvedBy", {
            name: `@${g.resolution.resolver.username}`,
            done: doneText(g.resolution.action),
          })}
          {g.resolution.resolvedAt && t("admin.reports.resolvedOn", { date: formatDateTime(g.resolution.resolvedAt) })}
          {g.resolution.note && ` (${g.resolution.note})`}
        </p>
      ) : (
        <div class="actions" role="group" aria-label={t("admin.reports.actions", { label: target.label })}>
          <button
            type="button"
            class="small"
            onClick={() =>
              onResolve("dismiss", {
                title: t("admin.reports.dismiss.title", { label: target.label }),
                text: t("admin.reports.dismiss.text"),
                confirm: t("admin.reports.dismiss.confirm"),
              })
            }
          >
            {t("admin.reports.dismiss.confirm")}
          </button>
          {removable && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                onResolve("remove-content", {
                  title: t("admin.reports.remove.title", { label: target.label }),
                  text: t(`admin.reports.remove.text.${removableType(target.type)}`),
                  confirm: t("admin.reports.remove.confirm"),
                  danger: true,
                })
              }
            >
              {t(`admin.reports.remove.button.${removableType(target.type)}`)}
            </button>
          )}
          {person && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                onResolve("block-posting", {
                  title: t("admin.accounts.blockPosting.title", { name: who }),
                  text: t("admin.accounts.blockPosting.text", { name: who }),
                  confirm: t("admin.accounts.blockPosting.confirm"),
                  danger: true,
                  fields: [
                    {
                      name: "minutes",
                      label: t("admin.accounts.blockPosting.minutes"),
                      type: "number",
                      initial: "1440",
                      required: true,
                    },
                  ],
                })
              }
            >
              {t("admin.reports.blockPosting")}
            </button>
          )}
          {person && !target.account.disabled && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                onResolve("disable-account", {
                  title: t("admin.accounts.disable.title", { name: who }),
                  text: t("admin.reports.disableAccount.text", { name: who }),
                  confirm: t("admin.accounts.disable.confirm"),
                  danger: true,
                })
              }
            >
              {t("admin.accounts.disable.confirm")}
            </button>
          )}
          {!person && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                onResolve("disable-bot", {
                  title: t("admin.reports.disableBot.title", { name: who }),
                  text: t("admin.reports.disableBot.text", { name: who }),
                  confirm: t("admin.reports.disableBot.confirm"),
                  danger: true,
                })
              }
            >
              {t("admin.reports.disableBot.button")}
            </button>
          )}
        </div>
      )}
    </li>
  );
}
