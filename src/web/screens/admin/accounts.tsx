import { useCallback, useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { t } from "../../lib/i18n";
import { usePagedList } from "../../lib/paged";
import { account as me } from "../../lib/session";
import type { AdminAccount, PageInfo } from "../../lib/types";
import { useAction } from "../../lib/use-action";
import { ActionDialog, type PendingAction } from "./action-dialog";

type Answer = { account: AdminAccount } & Record<string, unknown>;
/** An action on one account: its dialog, the endpoint, its body from the dialog's values, and what to say when done. */
type AskInput = Omit<PendingAction, "run"> & {
  path: string;
  body?: (v: Record<string, string>) => unknown;
  said: (r: Answer) => string;
};
type Ask = (action: AskInput) => void;
const path = (a: AdminAccount, action: string) => `/admin/accounts/${encodeURIComponent(a.username)}/${action}`;

/** Accounts: search, then act on one (each action confirmed in a dialog, each logged by the server). */
export function Accounts() {
  const [q, setQ] = useState("");
  const [query, setQuery] = useState("");
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<{ accounts: AdminAccount[]; pageInfo: PageInfo }>("/admin/accounts", {
        q: query,
        cursor,
      });
      return { items: r.accounts, nextCursor: r.pageInfo.nextCursor };
    },
    [query],
  );
  const list = usePagedList<AdminAccount>(`q:${query}`, load);
  const [pending, setPending] = useState<PendingAction | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const replace = (a: AdminAccount) => list.setItems((items) => items.map((x) => (x.id === a.id ? a : x)));

  /** Asks to confirm ACTION on A; on success the row shows the account as it is now. */
  function ask(a: AdminAccount, action: AskInput) {
    setDone(null);
    setPending({
      ...action,
      run: async (values) => {
        const r = await api.post<Answer>(action.path, action.body?.(values) ?? {});
        replace(r.account);
        setDone(action.said(r));
      },
    });
  }

  return (
    <section class="admin-section" aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">{t("admin.accounts.heading")}</h2>
      <form
        role="search"
        class="admin-search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(q.trim());
        }}
      >
        <Field
          type="search"
          label={t("admin.accounts.search")}
          hint={t("admin.accounts.searchHint")}
          value={q}
          onValue={setQ}
        />
        <button type="submit" class="primary">
          {t("admin.accounts.searchButton")}
        </button>
      </form>
      <Notice message={done} />
      <ul class="admin-list" aria-label={t("admin.accounts.heading")}>
        {list.items.map((a) => (
          <AccountRow key={a.id} account={a} ask={(action) => ask(a, action)} />
        ))}
      </ul>
      {!list.loading && list.done && list.items.length === 0 && <p class="empty">{t("admin.accounts.empty")}</p>}
      <FormError message={list.error} />
      {list.loading && <Loading label={t("admin.accounts.loading")} />}
      {!list.done && !list.loading && list.items.length > 0 && (
        <button type="button" onClick={list.more}>
          {t("admin.accounts.more")}
        </button>
      )}
      <CreateAccount onCreated={(a) => list.setItems((items) => [a, ...items])} />
      <ActionDialog action={pending} onClose={() => setPending(null)} />
    </section>
  );
}

function AccountRow({ account: a, ask }: { account: AdminAccount; ask: Ask }) {
  const self = me.value?.id === a.id;
  const name = `@${a.username}`;
  return (
    <li class="admin-item card" aria-labelledby={`account-${a.id}`}>
      <div class="admin-item-head">
        <h3 id={`account-${a.id}`}>{name}</h3>
        <span class="muted">{a.displayName}</span>
        <ul class="badges" aria-label={t("admin.common.state")}>
          {self && <li>{t("admin.accounts.you")}</li>}
          {a.isAdmin && <li>{t("admin.accounts.admin")}</li>}
          {a.isBot && <li>{t("admin.accounts.bot")}</li>}
          {a.disabled && <li class="bad">{t("admin.common.disabled")}</li>}
          {a.postingBlockedUntil && (
            <li class="bad">
              {t("admin.accounts.postingBlockedUntil", { until: formatDateTime(a.postingBlockedUntil) })}
            </li>
          )}
          {a.twoFactorMethod !== "none" && <li>{t("admin.accounts.twoFactor", { method: a.twoFactorMethod })}</li>}
        </ul>
      </div>
      <p class="muted">
        {t("admin.accounts.joined", {
          email: a.email ?? t("admin.accounts.noEmail"),
          date: formatDateTime(a.createdAt),
        })}
      </p>
      <div class="actions" role="group" aria-label={t("admin.common.actionsFor", { name })}>
        {a.disabled ? (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: t("admin.accounts.enable.title", { name }),
                text: t("admin.accounts.enable.text", { name }),
                confirm: t("admin.accounts.enable.confirm"),
                path: path(a, "enable"),
                said: () => t("admin.accounts.enable.said", { name }),
              })
            }
          >
            {t("admin.accounts.enable.button")}
          </button>
        ) : (
          !self && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                ask({
                  title: t("admin.accounts.disable.title", { name }),
                  text: t("admin.accounts.disable.text", { name }),
                  confirm: t("admin.accounts.disable.confirm"),
                  danger: true,
                  path: path(a, "disable"),
                  said: (r) => t("admin.accounts.disable.said", { name, count: r.sessionsRevoked as number }),
                })
              }
            >
              {t("admin.accounts.disable.button")}
            </button>
          )
        )}
        {!a.isBot &&
          !self &&
          (a.isAdmin ? (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                ask({
                  title: t("admin.accounts.revokeAdmin.title", { name }),
                  text: t("admin.accounts.revokeAdmin.text", { name }),
                  confirm: t("admin.accounts.revokeAdmin.confirm"),
                  danger: true,
                  path: path(a, "revoke-admin"),
                  said: () => t("admin.accounts.revokeAdmin.said", { name }),
                })
              }
            >
              {t("admin.accounts.revokeAdmin.button")}
            </button>
          ) : (
            <button
              type="button"
              class="small"
              onClick={() =>
                ask({
                  title: t("admin.accounts.grantAdmin.title", { name }),
                  text: t("admin.accounts.grantAdmin.text", { name }),
                  confirm: t("admin.accounts.grantAdmin.confirm"),
                  path: path(a, "grant-admin"),
                  said: () => t("admin.accounts.grantAdmin.said", { name }),
                })
              }
            >
              {t("admin.accounts.grantAdmin.button")}
            </button>
          ))}
        {!self && (
          <button
            type="button"
            class="small danger"
            onClick={() =>
              ask({
                title: t("admin.accounts.banDevices.title", { name }),
                text: t("admin.accounts.banDevices.text", { name }),
                confirm: t("admin.accounts.banDevices.confirm"),
                danger: true,
                path: path(a, "ban-devices"),
                said: (r) => t("admin.accounts.banDevices.said", { name, count: r.bannedDevices as number }),
              })
            }
          >
            {t("admin.accounts.banDevices.button")}
          </button>
        )}
        <button
          type="button"
          class="small"
          onClick={() =>
            ask({
              title: t("admin.accounts.unbanDevices.title", { name }),
              text: t("admin.accounts.unbanDevices.text", { name }),
              confirm: t("admin.accounts.unbanDevices.confirm"),
              path: path(a, "unban-devices"),
              said: (r) => t("admin.accounts.unbanDevices.said", { count: r.unbannedDevices as number }),
            })
          }
        >
          {t("admin.accounts.unbanDevices.button")}
        </button>
        {a.postingBlockedUntil ? (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: t("admin.accounts.unblockPosting.title", { name }),
                text: t("admin.accounts.unblockPosting.text", { name }),
                confirm: t("admin.accounts.unblockPosting.confirm"),
                path: path(a, "unblock-posting"),
                said: () => t("admin.accounts.unblockPosting.said", { name }),
              })
            }
          >
            {t("admin.accounts.unblockPosting.button")}
          </button>
        ) : (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: t("admin.accounts.blockPosting.title", { name }),
                text: t("admin.accounts.blockPosting.text", { name }),
                confirm: t("admin.accounts.blockPosting.confirm"),
                danger: true,
                fields: [
                  {
                    name: "minutes",
                    label: t("admin.accounts.blockPosting.minutes"),
                    type: "number",
                    initial: "60",
                    required: true,
                  },
                ],
                path: path(a, "block-posting"),
                body: (v) => ({ minutes: Number(v.minutes) }),
                said: (r) =>
                  t("admin.accounts.blockPosting.said", {
                    name,
                    until: formatDateTime(r.account.postingBlockedUntil!),
                  }),
              })
            }
          >
            {t("admin.accounts.blockPosting.button")}
          </button>
        )}
        {a.twoFactorMethod !== "none" && (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: t("admin.accounts.resetTwoFactor.title", { name }),
                text: t("admin.accounts.resetTwoFactor.text", { name }),
                confirm: t("admin.accounts.resetTwoFactor.confirm"),
                danger: true,
                path: path(a, "reset-two-factor"),
                said: () => t("admin.accounts.resetTwoFactor.said", { name }),
              })
            }
          >
            {t("admin.accounts.resetTwoFactor.button")}
          </button>
        )}
        {!self && (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: t("admin.accounts.password.title", { name }),
                text: t("admin.accounts.password.text", { name }),
                confirm: t("admin.accounts.password.confirm"),
                fields: [
                  {
                    name: "password",
                    label: t("admin.accounts.password.label"),
                    type: "password",
                    hint: t("admin.accounts.passwordHint"),
                    required: true,
                  },
                ],
                path: path(a, "password"),
                body: (v) => ({ password: v.password }),
                said: () => t("admin.accounts.password.said", { name }),
              })
            }
          >
            {t("admin.accounts.password.button")}
          </button>
        )}
        {!a.isBot && (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: t("admin.accounts.stars.title", { name }),
                text: t("admin.accounts.stars.text"),
                confirm: t("admin.accounts.stars.confirm"),
                fields: [
                  { name: "amount", label: t("admin.accounts.stars.amount"), type: "number", required: true },
                  { name: "reason", label: t("admin.accounts.stars.reason") },
                ],
                path: path(a, "stars"),
                body: (v) => ({ amount: Number(v.amount), ...(v.reason?.trim() ? { reason: v.reason.trim() } : {}) }),
                said: (r) => t("admin.accounts.stars.said", { name, count: r.balance as number }),
              })
            }
          >
            {t("admin.accounts.stars.button")}
          </button>
        )}
      </div>
    </li>
  );
}

/** A new account, as `socialctl user create` makes it. */
function CreateAccount({ onCreated }: { onCreated: (a: AdminAccount) => void }) {
  const [form, setForm] = useState({ email: "", username: "", password: "", displayName: "" });
  const [admin, setAdmin] = useState(false);
  const [verified, setVerified] = useState(true);
  const [made, setMade] = useState<string | null>(null);
  const { busy, error, apiError, run } = useAction();
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }));
  const onField = apiError && ["email", "username", "password", "displayName"].some((k) => apiError.field(k));
  return (
    <details class="card">
      <summary>{t("admin.accounts.create.summary")}</summary>
      <form
        class="form"
        onSubmit={run(async () => {
          setMade(null);
          const r = await api.post<{ account: AdminAccount }>("/admin/accounts", {
            ...form,
            displayName: form.displayName.trim() || undefined,
            admin,
            verified,
          });
          onCreated(r.account);
          setMade(t("admin.accounts.create.done", { name: `@${r.account.username}` }));
          setForm({ email: "", username: "", password: "", displayName: "" });
        })}
      >
        <Field
          label={t("admin.accounts.create.email")}
          type="email"
          autoComplete="off"
          required
          value={form.email}
          onValue={set("email")}
          error={apiError?.field("email")}
        />
        <Field
          label={t("admin.accounts.create.username")}
          autoComplete="off"
          required
          value={form.username}
          onValue={set("username")}
          error={apiError?.field("username")}
        />
        <Field
          label={t("admin.accounts.create.displayName")}
          autoComplete="off"
          value={form.displayName}
          onValue={set("displayName")}
          error={apiError?.field("displayName")}
        />
        <Field
          label={t("admin.accounts.create.password")}
          type="password"
          autoComplete="new-password"
          required
          value={form.password}
          onValue={set("password")}
          error={apiError?.field("password")}
          hint={t("admin.accounts.passwordHint")}
        />
        <label class="choice">
          <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.currentTarget.checked)} />{" "}
          {t("admin.accounts.create.admin")}
        </label>
        <label class="choice">
          <input type="checkbox" checked={verified} onChange={(e) => setVerified(e.currentTarget.checked)} />{" "}
          {t("admin.accounts.create.verified")}
        </label>
        <FormError message={error && !onField ? describeError(error) : null} />
        <Notice message={made} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {t("admin.accounts.create.submit")}
          </button>
        </div>
      </form>
    </details>
  );
}
