import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, describeError } from "../../lib/api";
import { chatDraft, drafts } from "../../lib/drafts";
import { onRealtime } from "../../lib/realtime";
import { markChatRead, rememberChat } from "./chat-store";
import {
  holdsMessage,
  newestFromOthers,
  openAround,
  openAtNewest,
  putSlice,
  readUpToOf,
  removeMessage,
  setReactions,
  slicesOf,
  updateConversation,
  upsertLive,
  type HistoryPage,
  type HistoryWindow,
} from "./history-window";
import type { ChatMessage, Conversation } from "../../lib/types";

const PAGE = 40;
/** rows of a page put in per frame */
const SLICE = 20;
/** Resolves once the browser has painted a frame (a task of its own after it). */
const afterPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));

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

export interface ChatHistoryEvents {
  /** a live message of this chat arrived (before it is merged) */
  onArrived(m: ChatMessage): void;
  /** the history was (re)loaded at its newest */
  onLoaded(conversation: Conversation): void;
  /** a page or a jump failed (null: clear the error shown) */
  onError(message: string | null): void;
}

/**
 * The open chat's history: the window of messages (history-window.ts) loaded at the newest or
 * around a message, paged both ways as the person scrolls, kept live, with the row read kept in
 * place on the screen and the read marker moved while the page is visible. PENDING (the rows
 * this device is sending) only tells when the list below the history changed.
 */
export function useChatHistory(
  conversationId: string,
  jumpTo: string | null,
  myId: string,
  pending: unknown,
  events: ChatHistoryEvents,
) {
  const [history, setHistory] = useState<HistoryWindow | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [paging, setPaging] = useState<"older" | "newer" | null>(null);
  const [typingUser, setTypingUser] = useState<string | null>(null);
  const [otherRead, setOtherRead] = useState(0);
  // the messageId of the search result shown highlighted
  const [found, setFound] = useState<number | null>(null);
  const on = useRef(events);
  on.current = events;
  // a row to bring into view once the history holding it is rendered
  const scrollToFound = useRef<number | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const topSentinel = useRef<HTMLDivElement>(null);
  const bottomSentinel = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const anchor = useRef<{ row: HTMLElement; offset: number } | null>(null);
  // each load of the newest page starts over: a page asked for before it is not merged into it
  const generation = useRef(0);
  const stickToBottom = useRef(true);
  const typingTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
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
      setHistory(openAtNewest(r, early.current));
      early.current = [];
      setOtherRead((seen) => Math.max(seen, r.conversation.othersReadMessageId ?? 0));
      rememberChat(r.conversation);
      setLoadError(null);
      on.current.onLoaded(r.conversation);
    } catch (err) {
      // a chat that is gone (or no longer mine) keeps no draft
      if (err instanceof ApiError && (err.code === "NOT_FOUND" || err.code === "FORBIDDEN"))
        drafts.remove(myId, chatDraft(conversationId));
      setLoadError(describeError(err));
    }
  }, [conversationId]);

  // what showMessage reads when called, kept out of its identity
  const historyRef = useRef<HistoryWindow | null>(null);
  historyRef.current = history;

  /** The page of history around message REF (its id), shown with it highlighted and in view. */
  const loadAround = useCallback(
    async (ref: string) => {
      early.current = [];
      const run = ++generation.current;
      try {
        const r = await api.get<HistoryPage>(`/social/messages/${conversationId}`, { limit: PAGE, around: ref });
        if (run !== generation.current) return;
        const { window, target } = openAround(r, ref);
        stickToBottom.current = false;
        anchor.current = null;
        scrollToFound.current = target;
        setFound(target);
        setHistory(window);
        setOtherRead((seen) => Math.max(seen, r.conversation.othersReadMessageId ?? 0));
        rememberChat(r.conversation);
        setLoadError(null);
      } catch (err) {
        // the message is gone (deleted, or never visible to me): the chat opens at its newest
        if (run === generation.current && !historyRef.current) await load();
        on.current.onError(describeError(err));
      }
    },
    [conversationId, load],
  );

  /** Shows a search result: highlighted where it is, or loaded with the history around it. */
  const showMessage = useCallback(
    (m: Pick<ChatMessage, "id" | "messageId">) => {
      on.current.onError(null);
      if (holdsMessage(historyRef.current, m.id)) {
        setFound(m.messageId);
        // already shown: the history does not change, so it is brought into view here
        scroller.current?.querySelector(`[data-message-id="${m.messageId}"]`)?.scrollIntoView({ block: "center" });
      } else void loadAround(m.id);
    },
    [loadAround],
  );

  useEffect(() => {
    setHistory(null);
    setTypingUser(null);
    setOtherRead(0);
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
        stickToBottom.current = false;
        // the page goes in a few rows per frame, nearest first: each step is a short task even on a
        // busy machine, and the row read stays put
        const slices = slicesOf(r, toward, SLICE);
        for (let i = 0; i < slices.length; i++) {
          const last = i === slices.length - 1;
          const el = scroller.current;
          anchor.current = el && list.current ? rowInView(el, list.current) : null;
          setHistory((h) => h && putSlice(h, r, slices[i]!, toward, last));
          if (!last) await afterPaint();
          if (run !== generation.current) return;
        }
      } catch (err) {
        on.current.onError(describeError(err));
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
        return upsertLive(h, m);
      });
    const offs = [
      onRealtime("message:new", ({ conversationId: cid, message }) => {
        if (!mine(cid)) return;
        const m = message as ChatMessage;
        const el = scroller.current;
        stickToBottom.current =
          atNewest.current && (!el || el.scrollHeight - el.scrollTop - el.clientHeight < 120 || m.sender.id === myId);
        on.current.onArrived(m);
        upsert(m);
        if (m.sender.id !== myId) setTypingUser(null);
      }),
      onRealtime("message:edited", ({ conversationId: cid, message }) => mine(cid) && upsert(message as ChatMessage)),
      onRealtime("message:deleted", ({ conversationId: cid, messageId }) => {
        if (!mine(cid)) return;
        early.current = early.current.filter((m) => m.id !== messageId);
        setHistory((h) => h && removeMessage(h, messageId));
      }),
      onRealtime("message:reaction", ({ conversationId: cid, messageId, reactions }) => {
        if (mine(cid)) setHistory((h) => h && setReactions(h, messageId, reactions as ChatMessage["reactions"]));
      }),
      onRealtime("message:read", ({ conversationId: cid, userId, messageId }) => {
        if (!mine(cid) || userId === myId) return;
        const seq = readUpToOf(historyRef.current, messageId);
        if (Number.isFinite(seq)) setOtherRead((r) => Math.max(r, seq));
      }),
      onRealtime("typing", ({ conversationId: cid, user }) => {
        if (!mine(cid) || user.id === myId) return;
        setTypingUser(user.username);
        clearTimeout(typingTimer.current);
        typingTimer.current = setTimeout(() => setTypingUser(null), 6000);
      }),
      onRealtime("chat:updated", ({ conversationId: cid, chat }) => {
        if (mine(cid)) setHistory((h) => h && updateConversation(h, chat as Partial<Conversation>));
      }),
      onRealtime("stream:reset", () => void load()),
    ];
    return () => offs.forEach((off) => off());
  }, [conversationId, load]);

  // read marker: everything shown is read while the page is visible
  const newestOther = newestFromOthers(history?.messages ?? [], myId);
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

  return {
    history,
    /** changes the window with one of history-window.ts's functions */
    setHistory,
    loadError,
    paging,
    typingUser,
    otherRead,
    found,
    setFound,
    load,
    showMessage,
    /** what is sent shows at the bottom */
    stickToBottom,
    refs: { scroller, list, topSentinel, bottomSentinel },
  };
}
