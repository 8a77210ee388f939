import { memo } from "preact/compat";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { Avatar } from "../../components/avatar";
import { Dialog } from "../../components/dialog";
import { FormError } from "../../components/field";
import { ReportDialog } from "../../components/report";
import { BotReportDialog } from "./bot-report";
import { api, ApiError, describeError } from "../../lib/api";
import { chatDraft, drafts } from "../../lib/drafts";
import { useAction } from "../../lib/use-action";
import { onRealtime } from "../../lib/realtime";
import { account } from "../../lib/session";
import { ChatActionsContext, type ChatActions } from "./actions";
import type { OutgoingMedia } from "./attachments";
import { chats, markChatRead, rememberChat } from "./chat-store";
import { Composer } from "./composer";
import { GroupPanel } from "./group-panel";
import { MessageBubble, PendingBubble, type PendingMessage } from "./message";
import { PaymentSheet, useStarBalance } from "./payment-sheet";
import type { BotCard, ChatMessage, Conversation, ReplyMarkup } from "../../lib/types";
import { botLinkTarget, type BotLinkTarget } from "./bot-links";
import { openWebApp, WebAppPanel, type OpenWebApp, type WebAppFraming } from "./web-app-panel";
import { useChatInView } from "../../lib/chat-in-view";
import { SearchIcon } from "../../components/icon";
import { ChatSearch } from "./chat-search";

const PAGE = 40;
/** rows of a page put in per frame */
const SLICE = 20;
/** Resolves once the browser has painted a frame (a task of its own after it). */
const afterPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
type WebAppLaunch = { url: string; framing: WebAppFraming };
const day = new Intl.DateTimeFormat(undefined, { dateStyle: "full" });
// each render walks the whole loaded history; Intl formatting is the costly part of it
const dayLabels = new Map<string, string>();
function dayOf(iso: string): string {
  let label = dayLabels.get(iso);
  if (label === undefined) {
    if (dayLabels.size > 50_000) dayLabels.clear();
    dayLabels.set(iso, (label = day.format(new Date(iso))));
  }
  return label;
}
const newClientId = () =>
  crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(36).slice(2)}`;

interface History {
  conversation: Conversation;
  messages: ChatMessage[]; // oldest first
  /** where the history goes on above the first message shown; null: the beginning of the chat */
  oldestCursor: string | null;
  /**
   * where it goes on below the last one shown; null: the newest messages are shown and live ones
   * join them. Set once the newest were let go while reading far back: scrolling down pages them
   * in again, "Show the newest messages" jumps there.
   */
  newestCursor: string | null;
}

interface HistoryPage {
  conversation: Conversation;
  messages: ChatMessage[]; // newest first
  pageInfo: { oldestCursor: string | null; newestCursor: string | null };
}

/**
 * At most this many messages are kept on the page: reading far back lets the newest go, and
 * reading back down lets the oldest go (a long history in the DOM makes every render and scroll slow).
 */
const WINDOW = 200;

/** Cursors of the messages at the ends of the pages loaded: the window is cut only where one leads on. */
type Edges = Map<number, string>;

function rememberEdges(edges: Edges, page: HistoryPage): void {
  const newest = page.messages[0];
  const oldest = page.messages[page.messages.length - 1];
  if (oldest && page.pageInfo.oldestCursor) edges.set(oldest.messageId, page.pageInfo.oldestCursor);
  if (newest && page.pageInfo.newestCursor) edges.set(newest.messageId, page.pageInfo.newestCursor);
}

/** Lets the newest messages go beyond the window (an older page came in above). */
function trimNewest(h: History, edges: Edges): History {
  if (h.messages.length <= WINDOW) return h;
  for (let i = WINDOW - 1; i > 0; i--) {
    const cursor = edges.get(h.messages[i]!.messageId);
    if (cursor) return { ...h, messages: h.messages.slice(0, i + 1), newestCursor: cursor };
  }
  return h;
}

/** Lets the oldest messages go beyond the window (a newer page came in below). */
function trimOldest(h: History, edges: Edges): History {
  const n = h.messages.length;
  if (n <= WINDOW) return h;
  for (let i = n - WINDOW; i < n - 1; i++) {
    const cursor = edges.get(h.messages[i]!.messageId);
    if (cursor) return { ...h, messages: h.messages.slice(i), oldestCursor: cursor };
  }
  return h;
}

/**
 * The first message row in view and how far below the history's top edge it is: a page put in
 * or let go at either end keeps it where it was on the screen. Rows are in order, so a binary
 * search reads a handful of positions instead of laying out every row.
 */
function rowInView(scroller: HTMLElement, list: HTMLElement): { row: HTMLElement; offset: number } | null {
  const top = scroller.getBoundingClientRect().top;
  const rows = list.children;
  let lo = 0;
  let hi = rows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.getBoundingClientRect().bottom <= top) lo = mid + 1;
    else hi = mid;
  }
  // a day separator moves when a page of the same day comes in above it: a message does not
  for (let i = lo; i < rows.length; i++) {
    const row = rows[i] as HTMLElement;
    if (row.dataset.messageId) return { row, offset: row.getBoundingClientRect().top - top };
  }
  return null;
}

/**
 * The history is rendered in blocks of the messages whose messageId falls in the same run of
 * BLOCK: a block is memoised on its messages, so a page put in above or below (or a keystroke in
 * the input) renders and diffs only the blocks it changed, not the whole window.
 */
const BLOCK = 40;

function blocksOf(messages: ChatMessage[]): ChatMessage[][] {
  const blocks: ChatMessage[][] = [];
  let current: ChatMessage[] = [];
  let no = -1;
  for (const m of messages) {
    const n = Math.floor(m.messageId / BLOCK);
    if (n !== no && current.length) (blocks.push(current), (current = []));
    no = n;
    current.push(m);
  }
  if (current.length) blocks.push(current);
  return blocks;
}

const sameItems = <T,>(a: T[], b: T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** One block's rows with their day separators (DAY_BEFORE: the day of the message above it). */
const MessageBlock = memo(
  function MessageBlock({
    messages,
    dayBefore,
    readUpTo,
    found,
  }: {
    messages: ChatMessage[];
    dayBefore: string;
    readUpTo: number;
    /** the messageId of the search result shown in this block, else null */
    found: number | null;
  }) {
    let lastDay = dayBefore;
    return (
      <>
        {/* keyed rows: the rows already shown keep their elements */}
        {messages.flatMap((m) => {
          const d = dayOf(m.createdAt);
          const sep = d !== lastDay;
          lastDay = d;
          const bubble = (
            <MessageBubble key={m.id} message={m} readByOther={m.messageId <= readUpTo} found={m.messageId === found} />
          );
          return sep
            ? [
                <li key={`day-${d}`} class="day-separator">
                  <span>{d}</span>
                </li>,
                bubble,
              ]
            : [bubble];
        })}
      </>
    );
  },
  (a, b) =>
    a.dayBefore === b.dayBefore &&
    a.readUpTo === b.readUpTo &&
    a.found === b.found &&
    sameItems(a.messages, b.messages),
);

/** A live event's message is the same for every member: it leaves out my own poll votes, so the ones I know stay. */
function keepMyVotes(known: ChatMessage, next: ChatMessage): ChatMessage {
  if (!next.poll || next.poll.myVotes !== undefined || known.poll?.myVotes === undefined) return next;
  return { ...next, poll: { ...next.poll, myVotes: known.poll.myVotes } };
}

/** The open chat: header, pinned bar, history (older pages on scrolling up), input, and the bot's extras. */
export function ChatView({
  conversationId,
  onBack,
  startLabel = null,
  onStartHandled,
  jumpTo = null,
}: {
  conversationId: string;
  onBack: () => void;
  /** a message to open the chat at (a search result's id), shown highlighted with the history around it */
  jumpTo?: string | null;
  /** a start link's label: the chat with its bot shows what START sends, and sends it on that press only */
  startLabel?: string | null;
  onStartHandled?: () => void;
}) {
  const me = account.value!;
  useChatInView(conversationId);
  const [history, setHistory] = useState<History | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [paging, setPaging] = useState<"older" | "newer" | null>(null);
  const [pending, setPending] = useState<PendingMessage[]>([]);
  const [draft, setDraft] = useState("");
  const [replyTo, setReplyTo] = useState<ChatMessage | null>(null);
  const [editing, setEditing] = useState<ChatMessage | null>(null);
  // the unsent text is kept on the device per chat; a message being edited is not a draft
  const editingNow = useRef(false);
  editingNow.current = !!editing;
  const savedDraft = () => drafts.read(me.id, chatDraft(conversationId))?.text ?? "";
  const typeDraft = (text: string) => {
    setDraft(text);
    if (!editingNow.current) drafts.write(me.id, chatDraft(conversationId), { text });
  };
  const [typingUser, setTypingUser] = useState<string | null>(null);
  const [otherRead, setOtherRead] = useState(0);
  const [bot, setBot] = useState<BotCard | null>(null);
  const [toast, setToast] = useState<string | null>(null);
  const [alertText, setAlertText] = useState<string | null>(null);
  const [link, setLink] = useState<BotLinkTarget | null>(null);
  const [viewer, setViewer] = useState<{
    url: string;
    alt: string;
    protectedContent?: boolean;
    shownUrl?: string;
  } | null>(null);
  const [forwarding, setForwarding] = useState<ChatMessage | null>(null);
  const [reporting, setReporting] = useState<ChatMessage | null>(null);
  const [reportingBot, setReportingBot] = useState(false);
  const [paying, setPaying] = useState<ChatMessage | null>(null);
  const [webApp, setWebApp] = useState<OpenWebApp | null>(null);
  const [usedKeyboard, setUsedKeyboard] = useState<string | null>(null);
  const [showInfo, setShowInfo] = useState(false);
  const [searching, setSearching] = useState(false);
  // the messageId of the search result shown highlighted
  const [found, setFound] = useState<number | null>(null);
  // a row to bring into view once the history holding it is rendered
  const scrollToFound = useRef<number | null>(null);
  const searchToggle = useRef<HTMLButtonElement>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const topSentinel = useRef<HTMLDivElement>(null);
  const bottomSentinel = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const anchor = useRef<{ row: HTMLElement; offset: number } | null>(null);
  const edges = useRef<Edges>(new Map());
  // each load of the newest page starts over: a page asked for before it is not merged into it
  const generation = useRef(0);
  // live messages that came while the newest were let go: merged when paging down reaches them
  const missed = useRef<ChatMessage[]>([]);
  const stickToBottom = useRef(true);
  const lastTypingSent = useRef(0);
  const typingTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const toastTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const forcedReplyFor = useRef<string | null>(null);
  useStarBalance(false);

  // live messages that arrive while the history request is out: merged into its answer
  const early = useRef<ChatMessage[]>([]);
  const load = useCallback(async () => {
    early.current = [];
    const run = ++generation.current;
    try {
      const r = await api.get<HistoryPage>(`/social/messages/${conversationId}`, { limit: PAGE });
      if (run !== generation.current) return;
      stickToBottom.current = true;
      anchor.current = null;
      edges.current.clear();
      missed.current = [];
      rememberEdges(edges.current, r);
      const byId = new Map([...r.messages].reverse().map((m) => [m.id, m]));
      for (const m of early.current) byId.set(m.id, m);
      early.current = [];
      const messages = [...byId.values()].sort((a, b) => a.messageId - b.messageId);
      setHistory({
        conversation: r.conversation,
        messages,
        oldestCursor: r.pageInfo.oldestCursor,
        newestCursor: null,
      });
      setOtherRead((seen) => Math.max(seen, r.conversation.othersReadMessageId ?? 0));
      rememberChat(r.conversation);
      setLoadError(null);
      if (r.conversation.otherUser?.isBot) {
        api.get<{ bot: BotCard }>(`/social/bots/${r.conversation.otherUser.username}`).then(
          (b) => setBot(b.bot),
          () => setBot(null),
        );
      } else setBot(null);
    } catch (err) {
      // a chat that is gone (or no longer mine) keeps no draft
      if (err instanceof ApiError && (err.code === "NOT_FOUND" || err.code === "FORBIDDEN"))
        drafts.remove(me.id, chatDraft(conversationId));
      setLoadError(describeError(err));
    }
  }, [conversationId]);

  // what showMessage reads when called, kept out of its identity
  const historyRef = useRef<History | null>(null);
  historyRef.current = history;

  /** The page of history around message REF (its id), shown with it highlighted and in view. */
  const loadAround = useCallback(
    async (ref: string) => {
      early.current = [];
      const run = ++generation.current;
      try {
        const r = await api.get<HistoryPage>(`/social/messages/${conversationId}`, { limit: PAGE, around: ref });
        if (run !== generation.current) return;
        const target = r.messages.find((m) => m.id === ref || String(m.messageId) === ref);
        stickToBottom.current = false;
        anchor.current = null;
        edges.current.clear();
        missed.current = [];
        rememberEdges(edges.current, r);
        scrollToFound.current = target?.messageId ?? null;
        setFound(target?.messageId ?? null);
        setHistory({
          conversation: r.conversation,
          messages: [...r.messages].reverse(),
          oldestCursor: r.pageInfo.oldestCursor,
          newestCursor: r.pageInfo.newestCursor,
        });
        setOtherRead((seen) => Math.max(seen, r.conversation.othersReadMessageId ?? 0));
        rememberChat(r.conversation);
        setLoadError(null);
      } catch (err) {
        // the message is gone (deleted, or never visible to me): the chat opens at its newest
        if (run === generation.current && !historyRef.current) await load();
        setActionError(describeError(err));
      }
    },
    [conversationId, load],
  );

  /** Shows a search result: highlighted where it is, or loaded with the history around it. */
  const showMessage = useCallback(
    (m: Pick<ChatMessage, "id" | "messageId">) => {
      setActionError(null);
      if (historyRef.current?.messages.some((x) => x.id === m.id)) {
        setFound(m.messageId);
        // already shown: the history does not change, so it is brought into view here
        scroller.current?.querySelector(`[data-message-id="${m.messageId}"]`)?.scrollIntoView({ block: "center" });
      } else void loadAround(m.id);
    },
    [loadAround],
  );
  useEffect(() => {
    setHistory(null);
    setPending([]);
    setReplyTo(null);
    setEditing(null);
    setDraft(savedDraft());
    setTypingUser(null);
    setOtherRead(0);
    setWebApp(null);
    setShowInfo(false);
    setSearching(false);
    setFound(null);
  }, [conversationId]);

  // the chat at its newest, or at the message the address names (a search result)
  useEffect(() => {
    if (jumpTo) void loadAround(jumpTo);
    else void load();
  }, [conversationId, jumpTo]);

  /** The next page above (older) or below (newer) what is shown; the window lets the far end go. */
  const loadMore = useCallback(
    async (toward: "older" | "newer") => {
      const cursor = toward === "older" ? history?.oldestCursor : history?.newestCursor;
      if (!cursor || paging) return;
      setPaging(toward);
      const run = generation.current;
      try {
        const r = await api.get<HistoryPage>(`/social/messages/${conversationId}`, {
          limit: PAGE,
          [toward === "older" ? "before" : "after"]: cursor,
        });
        if (run !== generation.current) return;
        rememberEdges(edges.current, r);
        stickToBottom.current = false;
        // the page goes in a few rows per frame, nearest first: each step is a short task even on a
        // busy machine (a whole page at once laid out for tens of ms), and the row read stays put
        const incoming = [...r.messages].reverse(); // oldest first
        while (incoming.length) {
          const slice = toward === "older" ? incoming.splice(-SLICE) : incoming.splice(0, SLICE);
          const done = incoming.length === 0;
          const el = scroller.current;
          anchor.current = el && list.current ? rowInView(el, list.current) : null;
          setHistory((h) => {
            if (!h) return h;
            const seen = new Set(h.messages.map((m) => m.id));
            const fresh = slice.filter((m) => !seen.has(m.id));
            if (toward === "older") {
              const next = { ...h, messages: [...fresh, ...h.messages] };
              return trimNewest(done ? { ...next, oldestCursor: r.pageInfo.oldestCursor } : next, edges.current);
            }
            const messages = [...h.messages, ...fresh];
            if (!done) return trimOldest({ ...h, messages }, edges.current);
            if (!r.pageInfo.newestCursor) {
              // caught up with the newest: live ones that came while this page was asked for follow it
              const last = messages[messages.length - 1]?.messageId ?? 0;
              for (const m of missed.current) if (m.messageId > last) messages.push(m);
              missed.current = [];
            }
            return trimOldest({ ...h, messages, newestCursor: r.pageInfo.newestCursor }, edges.current);
          });
          if (!done) await afterPaint();
          if (run !== generation.current) return;
        }
      } catch (err) {
        setActionError(describeError(err));
      } finally {
        setPaging(null);
      }
    },
    [history?.oldestCursor, history?.newestCursor, paging, conversationId],
  );

  // a page put in or let go at either end: the row that was in view stays where it was on the screen
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const a = anchor.current;
    anchor.current = null;
    const foundRow =
      scrollToFound.current === null
        ? null
        : el.querySelector<HTMLElement>(`[data-message-id="${scrollToFound.current}"]`);
    if (foundRow) {
      scrollToFound.current = null;
      foundRow.scrollIntoView({ block: "center" });
    } else if (a?.row.isConnected)
      el.scrollTop += a.row.getBoundingClientRect().top - el.getBoundingClientRect().top - a.offset;
    else if (stickToBottom.current) el.scrollTop = el.scrollHeight;
  }, [history, pending]);

  // while the newest message is in view, it stays in view as content grows (images, layout)
  const atNewest = useRef(true);
  atNewest.current = !history?.newestCursor;
  useEffect(() => {
    const el = scroller.current;
    const ol = list.current;
    if (!el || !ol) return;
    const onScroll = () =>
      (stickToBottom.current = atNewest.current && el.scrollHeight - el.scrollTop - el.clientHeight < 80);
    const ro = new ResizeObserver(() => {
      if (stickToBottom.current && !anchor.current) el.scrollTop = el.scrollHeight;
    });
    ro.observe(ol);
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => (ro.disconnect(), el.removeEventListener("scroll", onScroll));
  }, [!!history]);

  // near either end of what is shown, the next page there loads (a new observer reports at once
  // whether its end is still near, so fast scrolling keeps paging)
  useEffect(() => {
    const root = scroller.current;
    if (!root) return;
    const observers = (
      [
        [topSentinel.current, "older", "400px 0px 0px 0px"],
        [bottomSentinel.current, "newer", "0px 0px 400px 0px"],
      ] as const
    ).map(([target, toward, rootMargin]) => {
      const io = new IntersectionObserver((e) => e.some((x) => x.isIntersecting) && void loadMore(toward), {
        root,
        rootMargin,
      });
      if (target) io.observe(target);
      return io;
    });
    return () => observers.forEach((io) => io.disconnect());
  }, [loadMore, !!history]);

  // live: messages, edits, deletions, reactions, read markers and typing of this chat
  useEffect(() => {
    const mine = (cid: string) => cid === conversationId;
    const upsert = (m: ChatMessage) =>
      setHistory((h) => {
        if (!h) {
          early.current.push(m);
          return h;
        }
        const i = h.messages.findIndex((x) => x.id === m.id);
        if (i >= 0) {
          const next = h.messages.slice();
          next[i] = keepMyVotes(h.messages[i]!, m);
          return { ...h, messages: next };
        }
        if (h.newestCursor) {
          // the newest are not shown: paging down reaches it (or this, if its page was asked for already)
          if (!missed.current.some((x) => x.id === m.id)) missed.current = [...missed.current.slice(-199), m];
          return h;
        }
        return { ...h, messages: [...h.messages, m] };
      });
    const offs = [
      onRealtime("message:new", ({ conversationId: cid, message }) => {
        if (!mine(cid)) return;
        const m = message as ChatMessage;
        const el = scroller.current;
        stickToBottom.current =
          atNewest.current && (!el || el.scrollHeight - el.scrollTop - el.clientHeight < 120 || m.sender.id === me.id);
        if (m.clientMessageId) setPending((p) => p.filter((x) => x.clientMessageId !== m.clientMessageId));
        upsert(m);
        if (m.sender.id !== me.id) setTypingUser(null);
      }),
      onRealtime("message:edited", ({ conversationId: cid, message }) => mine(cid) && upsert(message as ChatMessage)),
      onRealtime("message:deleted", ({ conversationId: cid, messageId }) => {
        if (!mine(cid)) return;
        early.current = early.current.filter((m) => m.id !== messageId);
        setHistory((h) => (h ? { ...h, messages: h.messages.filter((m) => m.id !== messageId) } : h));
      }),
      onRealtime("message:reaction", ({ conversationId: cid, messageId, reactions }) => {
        if (mine(cid))
          setHistory((h) =>
            h
              ? {
                  ...h,
                  messages: h.messages.map((m) =>
                    m.id === messageId ? { ...m, reactions: reactions as ChatMessage["reactions"] } : m,
                  ),
                }
              : h,
          );
      }),
      onRealtime("message:read", ({ conversationId: cid, userId, messageId }) => {
        if (!mine(cid) || userId === me.id) return;
        setHistory((h) => {
          const seq = h?.messages.find((m) => m.id === messageId)?.messageId ?? Number(messageId);
          if (Number.isFinite(seq)) setOtherRead((r) => Math.max(r, seq));
          return h;
        });
      }),
      onRealtime("typing", ({ conversationId: cid, user }) => {
        if (!mine(cid) || user.id === me.id) return;
        setTypingUser(user.username);
        clearTimeout(typingTimer.current);
        typingTimer.current = setTimeout(() => setTypingUser(null), 6000);
      }),
      onRealtime("chat:updated", ({ conversationId: cid, chat }) => {
        if (mine(cid))
          setHistory((h) =>
            h ? { ...h, conversation: { ...h.conversation, ...(chat as Partial<Conversation>) } } : h,
          );
      }),
      onRealtime("stream:reset", () => void load()),
    ];
    return () => offs.forEach((off) => off());
  }, [conversationId, load]);

  // read marker: everything shown is read while the page is visible
  const newestOther = [...(history?.messages ?? [])].reverse().find((m) => m.sender.id !== me.id)?.messageId ?? 0;
  const lastRead = useRef(0);
  useEffect(() => {
    if (!history) return;
    lastRead.current = Math.max(lastRead.current, history.conversation.lastReadMessageId);
    const markIfVisible = () => {
      if (document.visibilityState !== "visible") return;
      markChatRead(conversationId);
      if (newestOther <= lastRead.current) return;
      lastRead.current = newestOther;
      api
        .post(`/social/messages/${conversationId}/read`, { messageId: newestOther })
        .catch(() => (lastRead.current = 0));
    };
    markIfVisible();
    document.addEventListener("visibilitychange", markIfVisible);
    return () => document.removeEventListener("visibilitychange", markIfVisible);
  }, [newestOther, !!history]);

  const sendNow = useCallback(
    async (p: PendingMessage, media?: OutgoingMedia[]) => {
      setPending((list) => [
        ...list.filter((x) => x.clientMessageId !== p.clientMessageId),
        { ...p, state: "sending", error: undefined },
      ]);
      stickToBottom.current = true;
      try {
        const body: Record<string, unknown> = { content: p.content, clientMessageId: p.clientMessageId };
        if (p.replyTo) body.replyToId = p.replyTo.id;
        if (media) body.media = media;
        if (p.linkPreview === false) body.linkPreview = false;
        const { message } = await api.post<{ message: ChatMessage }>(`/social/messages/${conversationId}`, body);
        setPending((list) => list.filter((x) => x.clientMessageId !== p.clientMessageId));
        setHistory((h) =>
          h && !h.newestCursor && !h.messages.some((m) => m.id === message.id)
            ? { ...h, messages: [...h.messages, message] }
            : h,
        );
      } catch (err) {
        setPending((list) =>
          list.map((x) =>
            x.clientMessageId === p.clientMessageId ? { ...x, state: "failed", error: describeError(err) } : x,
          ),
        );
      }
    },
    [conversationId],
  );

  const media = useRef(new Map<string, OutgoingMedia[]>());
  // what a send reads when it happens, kept out of its identity: the chat's actions (a context
  // every message row reads) stay the same object while pages come and go or a reply is chosen,
  // so a page put in renders its new rows only
  const sendState = useRef({ replyTo, behind: false });
  sendState.current = { replyTo, behind: !!history?.newestCursor };
  const send = useCallback(
    (text: string, items?: OutgoingMedia[], options?: { linkPreview?: boolean }) => {
      const p: PendingMessage = {
        clientMessageId: newClientId(),
        content: text,
        replyTo: sendState.current.replyTo,
        ...(options?.linkPreview === false ? { linkPreview: false } : {}),
        state: "sending",
        createdAt: new Date().toISOString(),
      };
      if (items) media.current.set(p.clientMessageId, items);
      setReplyTo(null);
      // reading far back: what I send shows with the newest messages, loaded again
      if (sendState.current.behind) void load();
      void sendNow(p, items);
    },
    [sendNow, load],
  );

  const run = (fn: () => Promise<unknown>) => {
    setActionError(null);
    fn().catch((err) => setActionError(describeError(err)));
  };

  const showToast = (text: string) => {
    setToast(text);
    clearTimeout(toastTimer.current);
    toastTimer.current = setTimeout(() => setToast(null), 4000);
  };

  const conversation = history?.conversation ?? null;
  const actions: ChatActions | null = useMemo(
    () =>
      conversation && {
        conversation,
        myId: me.id,
        reply: (m) => (setEditing(null), setReplyTo(m)),
        edit: (m) => (setReplyTo(null), setEditing(m), setDraft(m.content)),
        remove: (m, forEveryone) =>
          run(async () => {
            await api.delete(
              `/social/messages/${conversationId}/${m.id}`,
              undefined,
              forEveryone ? { forEveryone: true } : undefined,
            );
            setHistory((h) => (h ? { ...h, messages: h.messages.filter((x) => x.id !== m.id) } : h));
          }),
        react: (m, emoji) =>
          run(async () => {
            const { reactions } = await api.post<{ reactions: ChatMessage["reactions"] }>(
              `/social/messages/${conversationId}/${m.id}/reactions`,
              { emoji },
            );
            setHistory((h) =>
              h ? { ...h, messages: h.messages.map((x) => (x.id === m.id ? { ...x, reactions } : x)) } : h,
            );
          }),
        pin: (m, pinned) =>
          run(async () => {
            const { message } = pinned
              ? await api.post<{ message: ChatMessage }>(`/social/messages/${conversationId}/${m.id}/pin`)
              : await api.delete<{ message: ChatMessage }>(`/social/messages/${conversationId}/${m.id}/pin`);
            setHistory((h) => (h ? { ...h, messages: h.messages.map((x) => (x.id === message.id ? message : x)) } : h));
          }),
        forward: setForwarding,
        report: setReporting,
        setDraft: (text) => {
          typeDraft(text);
          requestAnimationFrame(() => document.getElementById("chat-input")?.focus());
        },
        send: (text) => send(text),
        openWebApp: (m, url) =>
          run(async () => {
            const r = await api.post<WebAppLaunch>(`/social/messages/${conversationId}/${m.id}/web-app`, { url });
            setWebApp(openWebApp(r, m.sender.displayName));
          }),
        pay: setPaying,
        vote: async (m, options) => {
          const path = `/social/messages/${conversationId}/${m.id}/poll/vote`;
          const { message } = options.length
            ? await api.post<{ message: ChatMessage }>(path, { options })
            : await api.delete<{ message: ChatMessage }>(path);
          // the poll may have closed (a live event) while the vote was answered: closing is for good
          const merge = (x: ChatMessage): ChatMessage =>
            x.poll?.isClosed && message.poll ? { ...message, poll: { ...message.poll, isClosed: true } } : message;
          setHistory((h) => (h ? { ...h, messages: h.messages.map((x) => (x.id === message.id ? merge(x) : x)) } : h));
        },
        toast: showToast,
        alert: setAlertText,
        // every link a bot gives waits for a press, this site's pages too; sign-in pages never open
        confirmLink: (url) => setLink(botLinkTarget(url, location.origin)),
        viewImage: (url, alt, protectedContent, shownUrl) => setViewer({ url, alt, protectedContent, shownUrl }),
      },
    [conversation, send, conversationId],
  );

  function typed() {
    const now = Date.now();
    if (now - lastTypingSent.current < 4000) return;
    lastTypingSent.current = now;
    api.post(`/social/messages/${conversationId}/typing`).catch(() => undefined);
  }

  async function saveEdit(m: ChatMessage, text: string) {
    const { message } = await api.patch<{ message: ChatMessage }>(`/social/messages/${conversationId}/${m.id}`, {
      content: text,
    });
    setHistory((h) => (h ? { ...h, messages: h.messages.map((x) => (x.id === message.id ? message : x)) } : h));
    setEditing(null);
    setDraft(savedDraft());
  }

  const messages = history?.messages ?? [];
  // the bot's keyboard: the newest message of the other side that set or removed one
  const keyboard: ReplyMarkup | null = useMemo(() => {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.sender.id === me.id || !m.replyMarkup) continue;
      if (m.replyMarkup.remove_keyboard) return null;
      if (m.replyMarkup.keyboard) return usedKeyboard === m.id ? null : m.replyMarkup;
    }
    return null;
  }, [messages, usedKeyboard]);
  const keyboardOwner = useMemo(
    () => [...messages].reverse().find((m) => m.sender.id !== me.id && m.replyMarkup?.keyboard)?.id ?? null,
    [messages],
  );

  // force_reply: the bot's newest message asks for an answer to itself
  const newest = messages[messages.length - 1];
  useEffect(() => {
    if (
      newest &&
      newest.sender.id !== me.id &&
      newest.replyMarkup?.force_reply &&
      forcedReplyFor.current !== newest.id
    ) {
      forcedReplyFor.current = newest.id;
      setEditing(null);
      setReplyTo(newest);
    }
  }, [newest?.id]);

  const blocks = useMemo(() => blocksOf(messages), [messages]);
  const pinned = useMemo(() => [...messages].reverse().find((m) => m.pinned) ?? null, [messages]);

  if (loadError)
    return (
      <section class="chat-view" aria-label="Chat">
        <p class="form-error" role="alert">
          {loadError}
        </p>
        <button type="button" onClick={() => void load()}>
          Try again
        </button>
      </section>
    );
  if (!history || !actions)
    return (
      <section class="chat-view" aria-label="Chat">
        <p class="loading" role="status">
          Loading the chat…
        </p>
      </section>
    );

  const title = conversation!.title ?? "Chat";
  const other = conversation!.otherUser;
  return (
    <ChatActionsContext.Provider value={actions}>
      <div class={`chat-area ${webApp ? "with-web-app" : ""}`}>
        <section class="chat-view" aria-labelledby="chat-title">
          <header class="chat-head">
            <button type="button" class="back-button" onClick={onBack} aria-label="Back to chats">
              ←
            </button>
            {other ? (
              <Avatar user={other} size={32} />
            ) : (
              <span class="avatar avatar-letter hue-3" aria-hidden="true" data-size="32">
                {title.charAt(0).toUpperCase()}
              </span>
            )}
            <div class="chat-head-text">
              <h2 id="chat-title">{title}</h2>
              <p class="muted chat-sub" aria-live="polite">
                {typingUser
                  ? `${typingUser} is typing…`
                  : other
                    ? `@${other.username}${other.isBot ? " · bot" : ""}`
                    : `${conversation!.memberCount} members`}
              </p>
            </div>
            <button
              type="button"
              ref={searchToggle}
              class="icon-button"
              aria-label="Search in this chat"
              aria-expanded={searching}
              aria-controls="chat-search"
              onClick={() => setSearching(!searching)}
            >
              <SearchIcon size={18} />
            </button>
            {other?.isBot && (
              <button type="button" onClick={() => setReportingBot(true)}>
                Report
              </button>
            )}
            {conversation!.type === "group" && (
              <button type="button" onClick={() => setShowInfo(!showInfo)} aria-expanded={showInfo}>
                Group info
              </button>
            )}
          </header>
          {searching && (
            <ChatSearch
              conversationId={conversationId}
              onShow={showMessage}
              onClose={() => {
                setSearching(false);
                setFound(null);
                searchToggle.current?.focus();
              }}
            />
          )}
          {pinned && (
            <button
              type="button"
              class="pinned-bar"
              onClick={() =>
                document.querySelector(`[data-message-id="${pinned.messageId}"]`)?.scrollIntoView({ block: "center" })
              }
            >
              <span class="pinned-label">Pinned message</span>{" "}
              <span class="pinned-text">{pinned.content || "Attachment"}</span>
            </button>
          )}
          {actionError && (
            <p class="form-error" role="alert">
              {actionError}
            </p>
          )}
          {startLabel && other?.isBot && (
            <StartPrompt bot={other.username} label={startLabel} onStarted={() => (onStartHandled?.(), void load())} />
          )}
          <div class="history-frame">
            <div class="history" ref={scroller} tabIndex={0} aria-label="Message history" role="region">
              <div ref={topSentinel} class="history-top">
                {paging === "older" ? (
                  <p class="loading" role="status">
                    Loading older messages…
                  </p>
                ) : !history.oldestCursor && messages.length > 0 ? (
                  <p class="muted">This is the beginning of the chat.</p>
                ) : null}
              </div>
              {messages.length === 0 && pending.length === 0 && !(startLabel && other?.isBot) && (
                <div class="chat-empty">
                  {bot ? (
                    <>
                      <h3>{bot.displayName}</h3>
                      {bot.description ? (
                        <p class="bot-description">{bot.description}</p>
                      ) : (
                        <p class="muted">This bot has no description.</p>
                      )}
                      <button type="button" class="primary" onClick={() => send("/start")}>
                        Start
                      </button>
                    </>
                  ) : (
                    <p class="muted">No messages yet. Say hello!</p>
                  )}
                </div>
              )}
              <ol class="messages" ref={list}>
                {blocks.map((block, i) => {
                  const first = block[0]!.messageId;
                  const last = block[block.length - 1]!.messageId;
                  return (
                    <MessageBlock
                      key={Math.floor(first / BLOCK)}
                      messages={block}
                      dayBefore={i ? dayOf(blocks[i - 1]!.at(-1)!.createdAt) : ""}
                      // a block read through (or not at all) keeps the same value as the marker moves
                      readUpTo={Math.max(first - 1, Math.min(otherRead, last))}
                      found={found !== null && found >= first && found <= last ? found : null}
                    />
                  );
                })}
                {pending.map((p) => (
                  <PendingBubble
                    key={p.clientMessageId}
                    pending={p}
                    onRetry={() => void sendNow(p, media.current.get(p.clientMessageId))}
                    onDiscard={() => setPending((list) => list.filter((x) => x.clientMessageId !== p.clientMessageId))}
                  />
                ))}
              </ol>
              {history.newestCursor && (
                <div ref={bottomSentinel} class="history-bottom">
                  {paging === "newer" && (
                    <p class="loading" role="status">
                      Loading newer messages…
                    </p>
                  )}
                </div>
              )}
            </div>
            {/* over the history, not below it: showing or hiding it never resizes what is read */}
            {history.newestCursor && (
              <button type="button" class="newest-button" onClick={() => void load()}>
                Show the newest messages
              </button>
            )}
          </div>
          <Composer
            draft={draft}
            setDraft={typeDraft}
            replyTo={replyTo}
            editing={editing}
            cancelMode={() => {
              if (editing) setDraft(savedDraft());
              setReplyTo(null);
              setEditing(null);
            }}
            onSend={send}
            onEdit={saveEdit}
            onTyping={typed}
            bot={bot}
            keyboard={keyboard}
            onKeyboardUsed={() => setUsedKeyboard(keyboardOwner)}
            onOpenMenuApp={() =>
              run(async () => {
                const r = await api.post<WebAppLaunch>(`/social/messages/${conversationId}/web-app`);
                setWebApp(openWebApp(r, bot?.displayName ?? "Mini-app"));
              })
            }
          />
          <div class="toast" role="status" aria-live="polite">
            {toast}
          </div>
        </section>
        {showInfo && conversation!.type === "group" && (
          <GroupPanel conversation={conversation!} onClose={() => setShowInfo(false)} />
        )}
        <WebAppPanel app={webApp} onClose={() => setWebApp(null)} />
      </div>
      <Dialog open={alertText !== null} title="Message from the bot" onClose={() => setAlertText(null)}>
        <p>{alertText}</p>
        <div class="dialog-actions">
          <button type="button" class="primary" onClick={() => setAlertText(null)}>
            OK
          </button>
        </div>
      </Dialog>
      <Dialog open={link !== null && link.kind !== "refused"} title="Open this link?" onClose={() => setLink(null)}>
        <p>{link?.kind === "internal" ? "This link opens a page of this site:" : "This link leaves the site:"}</p>
        <p class="link-target">{link?.href}</p>
        <div class="dialog-actions">
          <button type="button" onClick={() => setLink(null)}>
            Cancel
          </button>
          <button
            type="button"
            class="primary"
            onClick={() => {
              if (link!.kind === "internal") location.assign(link!.href);
              else window.open(link!.href, "_blank", "noopener,noreferrer");
              setLink(null);
            }}
          >
            Open link
          </button>
        </div>
      </Dialog>
      <Dialog open={link?.kind === "refused"} title="This link is not opened" onClose={() => setLink(null)}>
        <p>
          The bot's button leads to a sign-in page of this site. Such a page can approve a sign-in on another device as
          you, so a link from a bot never opens it.
        </p>
        <p class="link-target">{link?.href}</p>
        <div class="dialog-actions">
          <button type="button" class="primary" onClick={() => setLink(null)}>
            OK
          </button>
        </div>
      </Dialog>
      <Dialog open={viewer !== null} title={viewer?.alt ?? "Photo"} onClose={() => setViewer(null)}>
        {viewer && <img class="viewer-image" src={viewer.shownUrl ?? viewer.url} alt={viewer.alt} />}
        <div class="dialog-actions">
          {!viewer?.protectedContent && (
            <a href={viewer?.url} download>
              Download
            </a>
          )}
          <button type="button" class="primary" onClick={() => setViewer(null)}>
            Close
          </button>
        </div>
      </Dialog>
      {reporting && (
        <ReportDialog
          open
          target={{ type: "message", id: reporting.id, label: `@${reporting.sender.username}'s message` }}
          onClose={() => setReporting(null)}
        />
      )}
      {reportingBot && other?.isBot && <BotReportDialog bot={other.username} onClose={() => setReportingBot(false)} />}
      <Dialog open={forwarding !== null} title="Forward to…" onClose={() => setForwarding(null)}>
        <ul class="forward-list">
          {chats.value.map((c) => (
            <li key={c.id}>
              <button
                type="button"
                onClick={() =>
                  run(async () => {
                    const m = forwarding!;
                    setForwarding(null);
                    await api.post(`/social/messages/${conversationId}/${m.id}/forward`, {
                      toConversationId: c.id,
                      clientMessageId: newClientId(),
                    });
                    showToast(`Forwarded to ${c.title ?? "the chat"}`);
                  })
                }
              >
                {c.title ?? "Chat"}
              </button>
            </li>
          ))}
        </ul>
      </Dialog>
      <PaymentSheet
        payable={
          paying?.invoice
            ? { invoice: paying.invoice, payPath: `/social/messages/${paying.conversationId}/${paying.id}/pay` }
            : null
        }
        onClose={() => setPaying(null)}
      />
    </ChatActionsContext.Provider>
  );
}

/**
 * A start link's prompt: what pressing START sends to the bot (`/start <label>`) and what the
 * bot learns from it; sent once per press, never on opening the link.
 */
function StartPrompt({ bot, label, onStarted }: { bot: string; label: string; onStarted: () => void }) {
  const { busy, error, run } = useAction();
  const start = run(async () => {
    await api.post(`/social/users/${encodeURIComponent(bot)}/message`, { start: label });
    onStarted();
  });
  return (
    <section class="link-prompt start-prompt" aria-label="Start the bot">
      <p>
        A link asks you to start @{bot}. Pressing START sends it <code>/start {label}</code>; the bot then knows your
        name and username.
      </p>
      <FormError message={error ? describeError(error) : null} />
      <button type="button" class="primary" onClick={start} disabled={busy}>
        START
      </button>
    </section>
  );
}
