import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import type { Hashtag, PublicUser, SearchAnswer } from "./types";

/** A person or a hashtag offered while typing. */
export type Suggestion = { kind: "person"; user: PublicUser } | ({ kind: "hashtag" } & Hashtag);

export type SuggestionKind = "people" | "hashtags";

/** How many suggestions a list shows. */
const SHOWN = 6;
/**
 * The wait after the last keystroke before asking the server: a word typed at an ordinary pace
 * costs a request or two, well within the per-address request rate, and answers to queries
 * already typed past are never asked for.
 */
export const SUGGEST_DELAY_MS = 250;
/** Answers kept for going back over the same letters (backspace, a second mention of someone). */
const CACHED = 100;

const cache = new Map<string, Suggestion[]>();
function remember(key: string, items: Suggestion[]) {
  cache.delete(key);
  cache.set(key, items);
  if (cache.size > CACHED) cache.delete(cache.keys().next().value!);
}

async function fetchSuggestions(kind: SuggestionKind, query: string, signal: AbortSignal): Promise<Suggestion[]> {
  const r = await api.get<Pick<SearchAnswer, "users" | "hashtags">>(
    "/social/search",
    { q: query, type: kind === "people" ? "users" : "hashtags", limit: SHOWN },
    signal,
  );
  return kind === "people"
    ? r.users.map((user) => ({ kind: "person", user }))
    : r.hashtags.map((h) => ({ kind: "hashtag", tag: h.tag, postCount: h.postCount }));
}

/**
 * People or hashtags starting with QUERY (null: nothing is being typed), asked for once the
 * typing pauses; an answer to a query that is no longer current is dropped (and its request
 * cancelled). A failed request shows no suggestions: typing goes on as without them.
 */
export function useSuggestions(kind: SuggestionKind, query: string | null): Suggestion[] {
  const [shown, setShown] = useState<{ key: string; items: Suggestion[] } | null>(null);
  const key = query ? `${kind}:${query.toLowerCase()}` : null;
  useEffect(() => {
    if (!key || !query) return;
    const known = cache.get(key);
    if (known) return setShown({ key, items: known });
    const abort = new AbortController();
    const timer = setTimeout(() => {
      fetchSuggestions(kind, query, abort.signal).then(
        (items) => {
          remember(key, items);
          if (!abort.signal.aborted) setShown({ key, items });
        },
        () => undefined,
      );
    }, SUGGEST_DELAY_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [key]);
  if (!key || !query || !shown?.key.startsWith(`${kind}:`)) return [];
  // while the next answer is awaited, the previous list keeps what still fits the letters typed
  return shown.key === key ? shown.items : shown.items.filter((s) => fits(s, query.toLowerCase()));
}

function fits(s: Suggestion, prefix: string): boolean {
  if (s.kind === "hashtag") return s.tag.startsWith(prefix);
  const words = [s.user.username, ...s.user.displayName.split(/\s+/)];
  return words.some((w) => w.toLowerCase().startsWith(prefix));
}
