import { useEffect, useId, useState } from "preact/hooks";
import { Field, FormError, Notice } from "../../components/field";
import { api, describeError } from "../../lib/api";
import { formatDateTime } from "../../lib/format";
import { t } from "../../lib/i18n";
import { useAction } from "../../lib/use-action";
import type { ContentItem, LiveSetting } from "../../lib/types";

const KINDS = [
  { kind: "post", plural: "posts" },
  { kind: "comment", plural: "comments" },
  { kind: "story", plural: "stories" },
] as const;

/** The id in what was pasted: an id, or a link to the post ("…/posts/<id>"). */
const idOf = (raw: string) =>
  raw
    .trim()
    .replace(/[?#].*$/, "")
    .split("/")
    .filter(Boolean)
    .pop() ?? "";

/** Content: find a post, comment or story by its id or link and remove it; the blocked-words list. */
export function Content() {
  return (
    <>
      <RemoveContent />
      <BlockedWords />
    </>
  );
}

function RemoveContent() {
  const [kind, setKind] = useState<(typeof KINDS)[number]>(KINDS[0]);
  const [raw, setRaw] = useState("");
  const [found, setFound] = useState<ContentItem | null>(null);
  const [removed, setRemoved] = useState<string | null>(null);
  const lookup = useAction();
  const removal = useAction();
  const kindId = useId();
  return (
    <section class="card" aria-labelledby="remove-heading">
      <h2 id="remove-heading">{t("admin.content.heading")}</h2>
      <form
        class="form"
        onSubmit={lookup.run(async () => {
          setFound(null);
          setRemoved(null);
          removal.setError(null);
          const r = await api.get<{ content: ContentItem }>(
            `/admin/content/${kind.plural}/${encodeURIComponent(idOf(raw))}`,
          );
          setFound(r.content);
        })}
      >
        <div class="field">
          <label for={kindId}>{t("admin.content.kind")}</label>
          <select
            id={kindId}
            value={kind.kind}
            onChange={(e) => setKind(KINDS.find((k) => k.kind === e.currentTarget.value)!)}
          >
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {t(`admin.content.kinds.${k.kind}.label`)}
              </option>
            ))}
          </select>
        </div>
        <Field
          label={t("admin.content.id")}
          hint={t("admin.content.idHint")}
          required
          autoComplete="off"
          value={raw}
          onValue={setRaw}
        />
        <FormError message={lookup.error ? describeError(lookup.error) : null} />
        <div class="actions">
          <button type="submit" disabled={lookup.busy}>
            {t("admin.content.lookUp")}
          </button>
        </div>
      </form>
      {found && (
        <article class="admin-preview" aria-label={t(`admin.content.kinds.${found.kind}.toRemove`)}>
          <p>
            <strong>@{found.author.username ?? t("admin.content.deletedAccount")}</strong>{" "}
            <span class="muted">{formatDateTime(found.createdAt)}</span>
          </p>
          <blockquote>{found.text || <span class="muted">{t("admin.content.noText")}</span>}</blockquote>
          <FormError message={removal.error ? describeError(removal.error) : null} />
          <div class="actions">
            <button
              type="button"
              class="danger"
              disabled={removal.busy}
              onClick={removal.run(async () => {
                await api.delete(`/admin/content/${kind.plural}/${encodeURIComponent(found.id)}`);
                setFound(null);
                setRaw("");
                setRemoved(
                  t(`admin.content.kinds.${found.kind}.removed`, { name: `@${found.author.username ?? "?"}` }),
                );
              })}
            >
              {t(`admin.content.kinds.${found.kind}.remove`)}
            </button>
          </div>
        </article>
      )}
      <Notice message={removed} />
    </section>
  );
}

/** moderation.blockedWords, one word a line here, comma-separated in the config. */
function BlockedWords() {
  const [words, setWords] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const { busy, error, apiError, run } = useAction();
  const id = useId();
  useEffect(() => {
    api.get<{ settings: LiveSetting[] }>("/admin/settings").then(
      (r) =>
        setWords(
          String(r.settings.find((s) => s.key === "moderation.blockedWords")?.value ?? "")
            .split(",")
            .map((w) => w.trim())
            .filter(Boolean)
            .join("\n"),
        ),
      (err) => setSaved(describeError(err)),
    );
  }, []);
  const fieldError = apiError?.field("moderation.blockedWords");
  return (
    <section class="card" aria-labelledby="words-heading">
      <h2 id="words-heading">{t("admin.words.heading")}</h2>
      <form
        class="form"
        onSubmit={run(async () => {
          setSaved(null);
          const list = (words ?? "")
            .split(/[\n,]/)
            .map((w) => w.trim())
            .filter(Boolean);
          await api.patch("/admin/settings", { "moderation.blockedWords": list.join(",") });
          setSaved(list.length ? t("admin.words.saved", { count: list.length }) : t("admin.words.none"));
        })}
      >
        <div class="field">
          <label for={id}>{t("admin.words.label")}</label>
          <p class="hint" id={`${id}-hint`}>
            {t("admin.words.hint")}
          </p>
          <textarea
            id={id}
            rows={5}
            value={words ?? ""}
            disabled={words === null}
            aria-describedby={`${id}-hint`}
            aria-invalid={fieldError ? true : undefined}
            onInput={(e) => setWords(e.currentTarget.value)}
          />
          {fieldError && <p class="field-error">{fieldError}</p>}
        </div>
        <FormError message={error && !fieldError ? describeError(error) : null} />
        <Notice message={saved} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy || words === null}>
            {t("admin.words.save")}
          </button>
        </div>
      </form>
    </section>
  );
}
