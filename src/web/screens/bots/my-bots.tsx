import { useEffect, useState } from "preact/hooks";
import { Dialog } from "../../components/dialog";
import { Field, FormError, Notice } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { botSnippets, type BotLibrary } from "../../../lib/bot-libraries";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { BotLog } from "./bot-log";
import { CommandsEditor } from "./commands-editor";
import type { BotIncome as Income, OwnedBot } from "../../lib/types";
import { t } from "../../lib/i18n";
import { Sentence } from "../../components/sentence";

/** What the starter bots hold where the token goes when it is not shown (it is shown only once). */
const TOKEN_PLACEHOLDER = "<TOKEN>";

/**
 * /dashboard/bots: the owner's bots. Create one (its token shown once), reissue the token,
 * switch it on or off, privacy mode, description, its commands, income and withdrawal, the
 * one line each bot library needs to talk to this instance, and its developer log, live.
 */
export function MyBots() {
  const [bots, setBots] = useState<OwnedBot[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState<{ bot: OwnedBot; token: string } | null>(null);
  const reload = () =>
    api.get<{ bots: OwnedBot[] }>("/bots").then(
      (r) => (setBots(r.bots), setError(null)),
      (err) => setError(describeError(err)),
    );
  useEffect(() => void reload(), []);
  const replace = (b: OwnedBot) => setBots((list) => list?.map((x) => (x.id === b.id ? b : x)) ?? [b]);

  return (
    <Page title={t("nav.bots")}>
      <CreateBot
        onCreated={(bot, token) => {
          setBots((list) => [bot, ...(list ?? [])]);
          setToken({ bot, token });
        }}
      />
      <LocalSandbox />
      <FormError message={error} />
      {bots === null ? (
        <Loading label={t("bots.list.loading")} />
      ) : bots.length === 0 ? (
        <p class="empty">{t("bots.list.empty")}</p>
      ) : (
        bots.map((b) => (
          <BotCard key={b.id} bot={b} onChange={replace} onToken={(token) => setToken({ bot: b, token })} />
        ))
      )}
      <Dialog
        open={token !== null}
        title={t("bots.token.title", { username: token?.bot.username ?? "" })}
        onClose={() => setToken(null)}
      >
        {token && <TokenShownOnce bot={token.bot} token={token.token} onClose={() => setToken(null)} />}
      </Dialog>
    </Page>
  );
}

function CreateBot({ onCreated }: { onCreated: (bot: OwnedBot, token: string) => void }) {
  const [username, setUsername] = useState("");
  const [name, setName] = useState("");
  const action = useAction();
  const problem = username && !/_bot$/i.test(username) ? t("bots.create.suffix") : undefined;
  return (
    <form
      class="card"
      aria-labelledby="create-bot-title"
      onSubmit={action.run(async () => {
        const r = await api.post<{ bot: OwnedBot; token: string }>("/bots", {
          username: username.trim(),
          name: name.trim(),
        });
        setUsername("");
        setName("");
        onCreated(r.bot, r.token);
      })}
    >
      <h2 id="create-bot-title">{t("bots.create.title")}</h2>
      <Field
        label={t("bots.create.username")}
        hint={t("bots.create.usernameHint")}
        value={username}
        onValue={setUsername}
        required
        maxLength={64}
        error={problem ?? action.apiError?.field("username")}
      />
      <Field
        label={t("bots.create.name")}
        value={name}
        onValue={setName}
        required
        maxLength={64}
        error={action.apiError?.field("name")}
      />
      <FormError
        message={
          action.error && !action.apiError?.field("username") && !action.apiError?.field("name")
            ? describeError(action.error)
            : null
        }
      />
      <button type="submit" class="primary" disabled={action.busy || !!problem || !username.trim() || !name.trim()}>
        {t("bots.create.submit")}
      </button>
    </form>
  );
}

/** The path for trying a bot on one's own machine first (docs/bot-sandbox.md), in a few lines. */
function LocalSandbox() {
  const as = (action: string) => <code>socialctl as alice {action}</code>;
  return (
    <details class="card connect sandbox-help">
      <summary>{t("bots.sandbox.summary")}</summary>
      <p>
        <Sentence text={t("bots.sandbox.intro")} parts={{ command: <code>socialctl dev</code> }} />
      </p>
      <dl>
        <div>
          <dt>{t("bots.sandbox.apiRoot")}</dt>
          <dd>
            <code>http://127.0.0.1:8081</code>
          </dd>
        </div>
        <div>
          <dt>python-telegram-bot base_url</dt>
          <dd>
            <code>http://127.0.0.1:8081/bot</code>
          </dd>
        </div>
        <div>
          <dt>{t("bots.sandbox.person")}</dt>
          <dd>
            {as("send @sandbox_bot /start")}, {as("press @sandbox_bot 'Button text'")}, {as("pay @sandbox_bot")},{" "}
            {as("read @sandbox_bot --follow")}
          </dd>
        </div>
      </dl>
    </details>
  );
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard?.writeText(text).then(
            () => setDone(t("bots.copied")),
            () => setDone(t("bots.copyFailed")),
          )
        }
      >
        {label}
      </button>
      <span role="status" class="muted">
        {done}
      </span>
    </>
  );
}

/** The token, this once, and where to paste it. */
function TokenShownOnce({ bot, token, onClose }: { bot: OwnedBot; token: string; onClose: () => void }) {
  return (
    <div class="token-once">
      <p>{t("bots.token.once")}</p>
      <input
        readOnly
        aria-label={t("bots.token.label")}
        value={token}
        onFocus={(e) => e.currentTarget.select()}
        class="mono"
      />
      <div class="actions">
        <CopyButton text={token} label={t("bots.token.copy")} />
      </div>
      <ConnectPanel bot={bot} token={token} />
      <div class="dialog-actions">
        <button type="button" class="primary" onClick={onClose}>
          {t("bots.token.saved")}
        </button>
      </div>
    </div>
  );
}

/**
 * A starter bot per library (src/lib/bot-libraries.ts, the source docs/bot-api.md shows too),
 * filled with this instance's root and, when it is shown, the token.
 */
function ConnectPanel({ bot, token }: { bot: OwnedBot; token?: string }) {
  return (
    <section class="connect" aria-label={t("bots.connect.label", { username: bot.username })}>
      <h3>{t("bots.connect.title")}</h3>
      <p class="muted">
        {t("bots.connect.apiRoot")} <code>{bot.apiRoot}</code> · python-telegram-bot base_url:{" "}
        <code>{bot.libraries["python-telegram-bot"]}</code>
      </p>
      {!token && <p class="muted">{t("bots.connect.putToken", { placeholder: TOKEN_PLACEHOLDER })}</p>}
      {botSnippets(bot.apiRoot, token ?? TOKEN_PLACEHOLDER).map((s) => (
        <details key={s.id} class="snippet">
          <summary>{s.title}</summary>
          <p class="muted">
            <Sentence
              text={t("bots.connect.steps")}
              parts={{ install: <code>{s.install}</code>, file: <code>{s.file}</code>, run: <code>{s.run}</code> }}
            />
          </p>
          <pre tabIndex={0} aria-label={t("bots.connect.starter", { library: s.title })}>
            <code>{s.code}</code>
          </pre>
          <CopyButton text={s.code} label={t("bots.connect.copy", { library: s.title })} />
        </details>
      ))}
    </section>
  );
}

function BotCard({
  bot,
  onChange,
  onToken,
}: {
  bot: OwnedBot;
  onChange: (b: OwnedBot) => void;
  onToken: (token: string) => void;
}) {
  const [description, setDescription] = useState(bot.description ?? "");
  const [confirmReissue, setConfirmReissue] = useState(false);
  const [income, setIncome] = useState<Income | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const save = useAction();
  const withdraw = useAction();
  const loadIncome = () => api.get<Income>(`/bots/${bot.username}/income`).then(setIncome, () => undefined);
  useEffect(() => void loadIncome(), [bot.username]);
  const patch = (body: Partial<OwnedBot>) =>
    save.run(async () => {
      // a switch moves at once; a refusal puts it back
      onChange({ ...bot, ...body });
      try {
        const r = await api.patch<{ bot: OwnedBot }>(`/bots/${bot.username}`, body);
        onChange(r.bot);
        setNote(t("bots.card.saved"));
      } catch (err) {
        onChange(bot);
        throw err;
      }
    });

  return (
    <article class="card bot-card" aria-labelledby={`bot-${bot.id}`}>
      <h2 id={`bot-${bot.id}`}>
        {bot.name} <span class="muted">@{bot.username}</span>
      </h2>
      {bot.blocked && <p class="form-error">{t("bots.card.blocked")}</p>}
      <p>
        {t("bots.card.startLink")} <a href={bot.startLink}>{bot.startLink}</a>
      </p>
      <div class="actions">
        <label class="choice">
          <input
            type="checkbox"
            checked={bot.enabled}
            onChange={(e) => void patch({ enabled: e.currentTarget.checked })()}
          />{" "}
          {t("bots.card.enabled")}
        </label>
        <label class="choice">
          <input
            type="checkbox"
            checked={bot.privacy === "commands"}
            onChange={(e) => void patch({ privacy: e.currentTarget.checked ? "commands" : "all" })()}
          />{" "}
          {t("bots.card.privacy")}
        </label>
      </div>
      <form
        onSubmit={(e) => {
          // what the field shows at submit, not the state of the render this handler came from
          // (a CI run once saved "" right after the field was filled)
          const text = new FormData(e.currentTarget).get("description");
          return patch({ description: typeof text === "string" ? text : description })(e);
        }}
      >
        <div class="field">
          <label for={`desc-${bot.id}`}>{t("bots.card.description")}</label>
          <p class="hint" id={`desc-${bot.id}-hint`}>
            {t("bots.card.descriptionHint")}
          </p>
          <textarea
            id={`desc-${bot.id}`}
            name="description"
            aria-describedby={`desc-${bot.id}-hint`}
            maxLength={512}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </div>
        <button type="submit" disabled={save.busy}>
          {t("bots.card.saveDescription")}
        </button>
      </form>
      <FormError message={save.error ? describeError(save.error) : null} />
      <Notice message={note} />
      <CommandsEditor
        key={bot.id}
        username={bot.username}
        commands={bot.commands}
        onSaved={(commands) => onChange({ ...bot, commands })}
      />
      <h3>{t("bots.income.title")}</h3>
      {income ? (
        <>
          <p>{t("bots.income.amounts", { held: income.held, withdrawable: income.withdrawable })}</p>
          <button
            type="button"
            disabled={withdraw.busy || income.withdrawable < 1}
            onClick={withdraw.run(async () => {
              const r = await api.post<Income & { withdrawn: number; balance: number }>(
                `/bots/${bot.username}/income/withdraw`,
                {},
              );
              setIncome(r);
              setNote(t("bots.income.withdrew", { amount: r.withdrawn, balance: r.balance }));
            })}
          >
            {t("bots.income.withdraw")}
          </button>
          <FormError message={withdraw.error ? describeError(withdraw.error) : null} />
        </>
      ) : (
        <Loading label={t("bots.income.loading")} />
      )}
      <ConnectPanel bot={bot} />
      <BotLog username={bot.username} />
      <h3>{t("bots.token.heading")}</h3>
      {confirmReissue ? (
        <div class="warning" role="group" aria-label={t("bots.token.reissue")}>
          <p>{t("bots.token.reissueText")}</p>
          <button type="button" onClick={() => setConfirmReissue(false)}>
            {t("common.cancel")}
          </button>{" "}
          <button
            type="button"
            class="danger"
            onClick={save.run(async () => {
              const r = await api.post<{ bot: OwnedBot; token: string }>(`/bots/${bot.username}/token`);
              setConfirmReissue(false);
              onChange(r.bot);
              onToken(r.token);
            })}
          >
            {t("bots.token.reissueNow")}
          </button>
        </div>
      ) : (
        <button type="button" onClick={() => setConfirmReissue(true)}>
          {t("bots.token.reissue")}
        </button>
      )}
    </article>
  );
}
