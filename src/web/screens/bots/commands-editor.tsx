import { useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import type { BotCommand } from "../../lib/types";
import { t } from "../../lib/i18n";

/** setMyCommands' limit on the list; the server checks every other rule and says which field broke it. */
const MAX_COMMANDS = 100;

let nextRowKey = 0;
const withKeys = (list: BotCommand[]) => list.map((c) => ({ ...c, key: nextRowKey++ }));

/**
 * The bot's commands as everyone sees them (setMyCommands without a scope or language): rows
 * of command and description to add, change and remove, saved together. The server validates
 * them exactly as setMyCommands does; its complaint shows beside the field it names.
 */
export function CommandsEditor({
  username,
  commands,
  onSaved,
}: {
  username: string;
  commands: BotCommand[];
  onSaved: (saved: BotCommand[]) => void;
}) {
  const [rows, setRows] = useState(() => withKeys(commands));
  const [note, setNote] = useState<string | null>(null);
  const save = useAction();
  const fieldError = (field: string) => save.apiError?.field(field);
  // an edit makes the last answer stale (and a removed row would move its error to the next one)
  const edit = (fn: (list: typeof rows) => typeof rows) => {
    setNote(null);
    save.setError(null);
    setRows(fn);
  };
  const change = (key: number, patch: Partial<BotCommand>) =>
    edit((list) => list.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const named = save.apiError ? Object.keys(save.apiError.fieldErrors).some((f) => f.startsWith("commands.")) : false;
  const listError = fieldError("commands") ?? (save.error && !named ? describeError(save.error) : null);
  const headingId = `commands-${username}`;

  return (
    <form
      class="commands-editor"
      aria-labelledby={headingId}
      onSubmit={save.run(async () => {
        setNote(null);
        const r = await api.patch<{ bot: { commands: BotCommand[] } }>(`/bots/${username}`, {
          commands: rows.map(({ command, description }) => ({ command: command.trim(), description })),
        });
        setRows(withKeys(r.bot.commands));
        onSaved(r.bot.commands);
        setNote(r.bot.commands.length ? t("bots.commands.saved") : t("bots.commands.removed"));
      })}
    >
      <h3 id={headingId}>{t("bots.commands.title")}</h3>
      <p class="hint">{t("bots.commands.hint")}</p>
      {rows.length === 0 && <p class="muted">{t("bots.commands.none")}</p>}
      <ol class="command-rows">
        {rows.map((r, i) => (
          <li key={r.key} class="command-row">
            <Field
              label={t("bots.commands.command", { n: i + 1 })}
              value={r.command}
              onValue={(command) => change(r.key, { command })}
              error={fieldError(`commands.${i}.command`) ?? fieldError(`commands.${i}`)}
            />
            <Field
              label={t("bots.commands.description", { n: i + 1 })}
              value={r.description}
              onValue={(description) => change(r.key, { description })}
              error={fieldError(`commands.${i}.description`)}
            />
            <button
              type="button"
              class="command-remove"
              aria-label={t("bots.commands.remove", { n: i + 1 })}
              onClick={() => edit((list) => list.filter((x) => x.key !== r.key))}
            >
              {t("common.remove")}
            </button>
          </li>
        ))}
      </ol>
      <FormError message={listError} />
      <div class="actions">
        <button
          type="button"
          disabled={rows.length >= MAX_COMMANDS}
          onClick={() => edit((list) => [...list, ...withKeys([{ command: "", description: "" }])])}
        >
          {t("bots.commands.add")}
        </button>
        <button type="submit" class="primary" disabled={save.busy}>
          {t("bots.commands.save")}
        </button>
      </div>
      <Notice message={note} />
    </form>
  );
}
