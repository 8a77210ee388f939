import { useCallback, useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatNumber } from "../../lib/format";
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
      <h2 id="accounts-heading">Accounts</h2>
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
          label="Search accounts"
          hint="A name, a username or an exact e-mail address; empty lists the newest accounts."
          value={q}
          onValue={setQ}
        />
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <Notice message={done} />
      <ul class="admin-list" aria-label="Accounts">
        {list.items.map((a) => (
          <AccountRow key={a.id} account={a} ask={(action) => ask(a, action)} />
        ))}
      </ul>
      {!list.loading && list.done && list.items.length === 0 && <p class="empty">No account matches.</p>}
      <FormError message={list.error} />
      {list.loading && <Loading label="Loading accounts…" />}
      {!list.done && !list.loading && list.items.length > 0 && (
        <button type="button" onClick={list.more}>
          Load more accounts
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
        <ul class="badges" aria-label="State">
          {self && <li>You</li>}
          {a.isAdmin && <li>Admin</li>}
          {a.isBot && <li>Bot</li>}
          {a.disabled && <li class="bad">Disabled</li>}
          {a.postingBlockedUntil && <li class="bad">Posting blocked until {formatDateTime(a.postingBlockedUntil)}</li>}
          {a.twoFactorMethod !== "none" && <li>Two-factor: {a.twoFactorMethod}</li>}
        </ul>
      </div>
      <p class="muted">
        {a.email ?? "no e-mail"} · joined {formatDateTime(a.createdAt)}
      </p>
      <div class="actions" role="group" aria-label={`Actions for ${name}`}>
        {a.disabled ? (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: `Enable ${name}`,
                text: `${name} will be able to sign in again.`,
                confirm: "Enable account",
                path: path(a, "enable"),
                said: () => `${name} is enabled.`,
              })
            }
          >
            Enable
          </button>
        ) : (
          !self && (
            <button
              type="button"
              class="small danger"
              onClick={() =>
                ask({
                  title: `Disable ${name}`,
                  text: `${name} is signed out everywhere and cannot sign in until enabled.`,
                  confirm: "Disable account",
                  danger: true,
                  path: path(a, "disable"),
                  said: (r) =>
                    `${name} is disabled; ${formatNumber(r.sessionsRevoked as number)} session(s) signed out.`,
                })
              }
            >
              Disable
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
                  title: `Revoke admin from ${name}`,
                  text: `${name} can no longer open the admin area.`,
                  confirm: "Revoke admin",
                  danger: true,
                  path: path(a, "revoke-admin"),
                  said: () => `${name} is no longer an administrator.`,
                })
              }
            >
              Revoke admin
            </button>
          ) : (
            <button
              type="button"
              class="small"
              onClick={() =>
                ask({
                  title: `Make ${name} an administrator`,
                  text: `${name} can open the admin area and do everything you can here, including granting admin to others.`,
                  confirm: "Grant admin",
                  path: path(a, "grant-admin"),
                  said: () => `${name} is now an administrator.`,
                })
              }
            >
              Grant admin
            </button>
          ))}
        {!self && (
          <button
            type="button"
            class="small danger"
            onClick={() =>
              ask({
                title: `Ban the devices of ${name}`,
                text: `Every browser or program ${name} signed in from is refused, whoever uses it.`,
                confirm: "Ban devices",
                danger: true,
                path: path(a, "ban-devices"),
                said: (r) => `${formatNumber(r.bannedDevices as number)} device(s) of ${name} banned.`,
              })
            }
          >
            Ban devices
          </button>
        )}
        <button
          type="button"
          class="small"
          onClick={() =>
            ask({
              title: `Lift the device bans of ${name}`,
              text: `The devices banned through ${name} can be used again.`,
              confirm: "Unban devices",
              path: path(a, "unban-devices"),
              said: (r) => `${formatNumber(r.unbannedDevices as number)} device ban(s) lifted.`,
            })
          }
        >
          Unban devices
        </button>
        {a.postingBlockedUntil ? (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: `Let ${name} post again`,
                text: `${name} can post and comment again at once.`,
                confirm: "Unblock posting",
                path: path(a, "unblock-posting"),
                said: () => `${name} can post again.`,
              })
            }
          >
            Unblock posting
          </button>
        ) : (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: `Block posting by ${name}`,
                text: `${name} cannot post, repost or comment for this long.`,
                confirm: "Block posting",
                danger: true,
                fields: [{ name: "minutes", label: "Minutes", type: "number", initial: "60", required: true }],
                path: path(a, "block-posting"),
                body: (v) => ({ minutes: Number(v.minutes) }),
                said: (r) => `${name} cannot post until ${formatDateTime(r.account.postingBlockedUntil!)}.`,
              })
            }
          >
            Block posting
          </button>
        )}
        {a.twoFactorMethod !== "none" && (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: `Reset two-factor of ${name}`,
                text: `${name} signs in with the password alone, and can set two-factor up again.`,
                confirm: "Reset two-factor",
                danger: true,
                path: path(a, "reset-two-factor"),
                said: () => `Two-factor of ${name} is off.`,
              })
            }
          >
            Reset two-factor
          </button>
        )}
        {!self && (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: `Set a password for ${name}`,
                text: `${name} is signed out everywhere and signs in with the new password.`,
                confirm: "Set password",
                fields: [
                  {
                    name: "password",
                    label: "New password",
                    type: "password",
                    hint: "8 to 128 characters",
                    required: true,
                  },
                ],
                path: path(a, "password"),
                body: (v) => ({ password: v.password }),
                said: () => `The password of ${name} is changed.`,
              })
            }
          >
            Set password
          </button>
        )}
        {!a.isBot && (
          <button
            type="button"
            class="small"
            onClick={() =>
              ask({
                title: `Grant stars to ${name}`,
                text: "Stars are credited to the account's balance.",
                confirm: "Grant stars",
                fields: [
                  { name: "amount", label: "Amount", type: "number", required: true },
                  { name: "reason", label: "Reason (shown in their history)" },
                ],
                path: path(a, "stars"),
                body: (v) => ({ amount: Number(v.amount), ...(v.reason?.trim() ? { reason: v.reason.trim() } : {}) }),
                said: (r) => `${name} now has ${formatNumber(r.balance as number)} stars.`,
              })
            }
          >
            Grant stars
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
      <summary>Create an account</summary>
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
          setMade(`@${r.account.username} is created.`);
          setForm({ email: "", username: "", password: "", displayName: "" });
        })}
      >
        <Field
          label="Email"
          type="email"
          autoComplete="off"
          required
          value={form.email}
          onValue={set("email")}
          error={apiError?.field("email")}
        />
        <Field
          label="Username"
          autoComplete="off"
          required
          value={form.username}
          onValue={set("username")}
          error={apiError?.field("username")}
        />
        <Field
          label="Display name"
          autoComplete="off"
          value={form.displayName}
          onValue={set("displayName")}
          error={apiError?.field("displayName")}
        />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          value={form.password}
          onValue={set("password")}
          error={apiError?.field("password")}
          hint="8 to 128 characters"
        />
        <label class="choice">
          <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.currentTarget.checked)} /> Administrator
        </label>
        <label class="choice">
          <input type="checkbox" checked={verified} onChange={(e) => setVerified(e.currentTarget.checked)} /> E-mail
          address confirmed
        </label>
        <FormError message={error && !onField ? describeError(error) : null} />
        <Notice message={made} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Create account
          </button>
        </div>
      </form>
    </details>
  );
}
