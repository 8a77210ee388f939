import { useCallback, useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { Avatar } from "../../components/avatar";
import { Field, FormError } from "../../components/field";
import { ListFooter } from "../../components/list-footer";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatNumber } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import type { ChatMessage, Conversation, Hashtag, Post, PublicUser, SearchAnswer } from "../../lib/types";
import { PostCard } from "../feed/post-card";
import { FoundMessages, type FoundMessage } from "./found-messages";
import { t } from "../../lib/i18n";

type SearchType = "users" | "posts" | "hashtags" | "messages";
const TABS: Array<SearchType | "all"> = ["all", "users", "posts", "hashtags", "messages"];
const isType = (t: string | undefined): t is SearchType =>
  t === "users" || t === "posts" || t === "hashtags" || t === "messages";
/** Each message found with its chat. */
const foundIn = (r: Pick<SearchAnswer, "messages" | "chats">): FoundMessage[] =>
  r.messages.map((message) => ({
    id: message.id,
    message,
    chat: r.chats.find((c) => c.id === message.conversationId) ?? null,
  }));
/** Results of each kind shown under "All" before "more". */
const ALL_PER_KIND = 5;

/** /search?q=…&type=users|posts|hashtags|messages: people, posts, hashtags and my messages; the query lives in the address, so results can be linked and go back. */
export function Search() {
  const { query, route } = useLocation();
  const q = (query.q ?? "").trim();
  const type = isType(query.type) ? query.type : "all";
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);

  const go = (nextQ: string, nextType: SearchType | "all") => {
    const params = new URLSearchParams();
    if (nextQ.trim()) params.set("q", nextQ.trim());
    if (nextType !== "all") params.set("type", nextType);
    const s = params.toString();
    route(s ? `/search?${s}` : "/search");
  };

  return (
    <Page title={q ? t("search.titleFor", { q }) : t("nav.search")} heading={t("nav.search")}>
      <form
        class="card form search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          go(draft, type);
        }}
      >
        <Field
          label={t("search.label")}
          type="search"
          value={draft}
          onValue={setDraft}
          hint={t("search.hint")}
          maxLength={200}
        />
        <div class="actions">
          <button type="submit" class="primary">
            {t("nav.search")}
          </button>
        </div>
      </form>
      <div class="segmented" role="group" aria-label={t("search.which")}>
        {TABS.map((tab) => (
          <button key={tab} type="button" aria-pressed={type === tab} onClick={() => go(draft || q, tab)}>
            {t(`search.tabs.${tab}`)}
          </button>
        ))}
      </div>
      {!q ? (
        <p class="empty">{t("search.start")}</p>
      ) : type === "all" ? (
        <AllResults q={q} showMore={(t) => go(q, t)} />
      ) : (
        <TypedResults key={`${type}:${q}`} q={q} type={type} />
      )}
    </Page>
  );
}

/** The first page of each kind, with a way to see more of one kind. */
function AllResults({ q, showMore }: { q: string; showMore: (t: SearchType) => void }) {
  const [answer, setAnswer] = useState<SearchAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const abort = new AbortController();
    setAnswer(null);
    setError(null);
    api
      // one request; a few of each kind (the server reads a page of each index, not whole lists)
      .get<SearchAnswer>("/social/search", { q, limit: String(ALL_PER_KIND) }, abort.signal)
      .then(setAnswer)
      .catch((err) => (err as Error).name !== "AbortError" && setError(describeError(err)));
    return () => abort.abort();
  }, [q]);
  if (error) return <FormError message={error} />;
  if (!answer) return <Loading label={t("search.searching")} />;
  const { users, posts, hashtags, messages, cursors } = answer;
  if (!users.length && !posts.length && !hashtags.length && !messages.length)
    return <p class="empty">{t("search.nothing", { q })}</p>;
  const more = (type: SearchType) =>
    cursors[type] && (
      <button type="button" onClick={() => showMore(type)}>
        {t(`search.more.${type}`)}
      </button>
    );
  return (
    <>
      {users.length > 0 && (
        <section class="search-section" aria-labelledby="found-people">
          <h2 id="found-people">{t("search.tabs.users")}</h2>
          <UserList users={users} />
          {more("users")}
        </section>
      )}
      {hashtags.length > 0 && (
        <section class="search-section" aria-labelledby="found-tags">
          <h2 id="found-tags">{t("search.tabs.hashtags")}</h2>
          <HashtagList hashtags={hashtags} />
          {more("hashtags")}
        </section>
      )}
      {posts.length > 0 && (
        <section class="search-section" aria-labelledby="found-posts">
          <h2 id="found-posts">{t("search.tabs.posts")}</h2>
          <FoundPosts
            posts={posts}
            onChange={(p) => setAnswer({ ...answer, posts: posts.map((x) => (x.id === p.id ? p : x)) })}
            onDeleted={(p) => setAnswer({ ...answer, posts: posts.filter((x) => x.id !== p.id) })}
          />
          {more("posts")}
        </section>
      )}
      {messages.length > 0 && (
        <section class="search-section" aria-labelledby="found-messages">
          <h2 id="found-messages">{t("search.tabs.messages")}</h2>
          <FoundMessages found={foundIn(answer)} q={q} />
          {more("messages")}
        </section>
      )}
    </>
  );
}

type Row = { id: string; user?: PublicUser; post?: Post; hashtag?: Hashtag; found?: FoundMessage };

/** One kind of result, paged by the search's cursor. */
function TypedResults({ q, type }: { q: string; type: SearchType }) {
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<SearchAnswer>("/social/search", { q, type, cursor });
      const items: Row[] =
        type === "users"
          ? r.users.map((user) => ({ id: user.id, user }))
          : type === "posts"
            ? r.posts.map((post) => ({ id: post.id, post }))
            : type === "messages"
              ? foundIn(r).map((found) => ({ id: found.id, found }))
              : r.hashtags.map((hashtag) => ({ id: hashtag.tag, hashtag }));
      return { items, nextCursor: r.nextCursor };
    },
    [q, type],
  );
  const list = usePagedList<Row>(`${type}:${q}`, load);
  return (
    <section class="search-section" aria-label={t(`search.found.${type}`)}>
      {type === "users" && list.items.length > 0 && <UserList users={list.items.map((r) => r.user!)} />}
      {type === "hashtags" && list.items.length > 0 && <HashtagList hashtags={list.items.map((r) => r.hashtag!)} />}
      {type === "messages" && list.items.length > 0 && <FoundMessages found={list.items.map((r) => r.found!)} q={q} />}
      {type === "posts" && (
        <FoundPosts
          posts={list.items.map((r) => r.post!)}
          onChange={(p) => list.setItems((items) => items.map((r) => (r.id === p.id ? { id: p.id, post: p } : r)))}
          onDeleted={(p) => list.setItems((items) => items.filter((r) => r.id !== p.id))}
        />
      )}
      <ListFooter list={list} noun={t(`search.nouns.${type}`)} empty={t(`search.none.${type}`, { q })} />
    </section>
  );
}

function UserList({ users }: { users: PublicUser[] }) {
  return (
    <ul class="card result-list">
      {users.map((u) => (
        <li key={u.id} class="result-person">
          <Avatar user={u} size={40} />
          <span class="result-name">
            <a href={`/users/${u.username}`}>{u.displayName || u.username}</a>
            <span class="muted">
              @{u.username}
              {u.isBot ? ` · ${t("people.profile.bot")}` : ""}
            </span>
          </span>
        </li>
      ))}
    </ul>
  );
}

function HashtagList({ hashtags }: { hashtags: Hashtag[] }) {
  return (
    <ul class="card result-list">
      {hashtags.map((h) => (
        <li key={h.tag} class="result-tag">
          <a href={`/tags/${encodeURIComponent(h.tag)}`}>#{h.tag}</a>
          <span class="muted">
            {formatNumber(h.postCount)} {t("people.profile.posts", { count: h.postCount })}
          </span>
        </li>
      ))}
    </ul>
  );
}

function FoundPosts({
  posts,
  onChange,
  onDeleted,
}: {
  posts: Post[];
  onChange: (p: Post) => void;
  onDeleted: (p: Post) => void;
}) {
  return (
    <div class="post-list">
      {posts.map((p) => (
        <PostCard key={p.id} post={p} onChange={onChange} onDeleted={onDeleted} headingLevel={3} />
      ))}
    </div>
  );
}
