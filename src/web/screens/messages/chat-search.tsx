import { useEffect, useRef, useState } from "preact/hooks";
import { formatNumber } from "../../lib/format";
import { t } from "../../lib/i18n";
import { Excerpt } from "../../components/excerpt";
import { FormError } from "../../components/field";
import { api, describeError } from "../../lib/api";
import type { ChatMessage } from "../../lib/types";

/** One chat's search results as far as read: newest first, and where the search goes on. */
interface Results {
  q: string;
  messages: ChatMessage[];
  cursor: string | null;
}

/**
 * The chat's search bar: words searched in this chat only, the results gone through one at a
 * time (Older goes back in time, reading the next page of results when the loaded ones end),
 * each shown in the history by ONSHOW.
 */
export function ChatSearch({
  conversationId,
  onShow,
  onClose,
}: {
  conversationId: string;
  onShow: (m: ChatMessage) => void;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState("");
  const [results, setResults] = useState<Results | null>(null);
  const [index, setIndex] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const page = (q: string, cursor: string | null) =>
    api.get<{ messages: ChatMessage[]; nextCursor: string | null }>("/social/search", {
      q,
      type: "messages",
      chatId: conversationId,
      cursor,
    });

  async function search(event: Event) {
    event.preventDefault();
    const q = draft.trim();
    if (!q) return;
    setBusy(true);
    setError(null);
    try {
      let r = await page(q, null);
      // a page may come back short with more to read (the index is read a window at a time)
      while (r.messages.length === 0 && r.nextCursor) r = await page(q, r.nextCursor);
      setResults({ q, messages: r.messages, cursor: r.nextCursor });
      setIndex(0);
      if (r.messages[0]) onShow(r.messages[0]);
    } catch (err) {
      setResults(null);
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  async function older() {
    if (!results) return;
    const next = index + 1;
    if (next < results.messages.length) {
      setIndex(next);
      onShow(results.messages[next]!);
      return;
    }
    if (!results.cursor) return;
    setBusy(true);
    setError(null);
    try {
      let r = await page(results.q, results.cursor);
      while (r.messages.length === 0 && r.nextCursor) r = await page(results.q, r.nextCursor);
      const messages = [...results.messages, ...r.messages];
      setResults({ ...results, messages, cursor: r.nextCursor });
      if (messages[next]) {
        setIndex(next);
        onShow(messages[next]!);
      }
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  }

  function newer() {
    if (!results || index === 0) return;
    setIndex(index - 1);
    onShow(results.messages[index - 1]!);
  }

  const current = results?.messages[index];
  const total = results ? `${formatNumber(results.messages.length)}${results.cursor ? "+" : ""}` : "";
  return (
    <div class="chat-search" id="chat-search">
      <form role="search" aria-label={t("messages.header.search")} class="chat-search-row" onSubmit={search}>
        <label class="visually-hidden" for="chat-search-input">
          {t("messages.search.label")}
        </label>
        <input
          id="chat-search-input"
          ref={input}
          type="search"
          value={draft}
          maxLength={200}
          placeholder={t("messages.header.search")}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => e.key === "Escape" && onClose()}
        />
        <button type="submit" disabled={busy}>
          {t("messages.search.submit")}
        </button>
        <button
          type="button"
          class="icon-button"
          aria-label={t("messages.search.older")}
          disabled={busy || !results || (index + 1 >= results.messages.length && !results.cursor)}
          onClick={() => void older()}
        >
          ↑
        </button>
        <button
          type="button"
          class="icon-button"
          aria-label={t("messages.search.newer")}
          disabled={busy || !results || index === 0}
          onClick={newer}
        >
          ↓
        </button>
        <button type="button" class="icon-button" aria-label={t("messages.search.close")} onClick={onClose}>
          ×
        </button>
      </form>
      <p class="chat-search-status muted" role="status">
        {busy
          ? t("messages.search.searching")
          : !results
            ? ""
            : current
              ? t("messages.search.result", { index: formatNumber(index + 1), total })
              : t("messages.search.nothing", { q: results.q })}
      </p>
      {current && (
        <p class="chat-search-current">
          <strong>{current.sender.displayName || current.sender.username}:</strong>{" "}
          <Excerpt text={current.content} q={results!.q} max={120} />
        </p>
      )}
      <FormError message={error} />
    </div>
  );
}
