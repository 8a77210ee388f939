import type { ChatMessage, Conversation, ReplyMarkup } from "../../lib/types";

/**
 * The window of a chat's history the open chat shows: the pages loaded around where the person
 * reads, the live messages merged in, and what the view derives from them (the pinned message,
 * the bot's keyboard, the read marker). Pure functions over plain values: the chat view keeps one
 * `HistoryWindow` in its state and the requests and the scrolling to itself.
 */
export interface HistoryWindow {
  conversation: Conversation;
  /** oldest first */
  messages: ChatMessage[];
  /** where the history goes on above the first message shown; null: the beginning of the chat */
  oldestCursor: string | null;
  /**
   * where it goes on below the last one shown; null: the newest messages are shown and live ones
   * join them. Set once the newest were let go while reading far back: scrolling down pages them
   * in again, "Show the newest messages" jumps there.
   */
  newestCursor: string | null;
  /** cursors of the messages at the ends of the pages loaded (by messageId): the window is cut only where one leads on */
  edges: ReadonlyMap<number, string>;
  /** live messages that came while the newest were let go: merged when paging down reaches them */
  missed: readonly ChatMessage[];
}

/** One answer of GET /social/messages/:cid. */
export interface HistoryPage {
  conversation: Conversation;
  /** newest first */
  messages: ChatMessage[];
  pageInfo: { oldestCursor: string | null; newestCursor: string | null };
}

/**
 * At most this many messages are kept on the page: reading far back lets the newest go, and
 * reading back down lets the oldest go (a long history in the DOM makes every render and scroll slow).
 */
export const WINDOW = 200;
/** Live messages kept for paging down to while the newest are let go. */
const MISSED_KEPT = 200;

function withEdges(edges: ReadonlyMap<number, string>, page: HistoryPage): ReadonlyMap<number, string> {
  const newest = page.messages[0];
  const oldest = page.messages[page.messages.length - 1];
  const next = new Map(edges);
  if (oldest && page.pageInfo.oldestCursor) next.set(oldest.messageId, page.pageInfo.oldestCursor);
  if (newest && page.pageInfo.newestCursor) next.set(newest.messageId, page.pageInfo.newestCursor);
  return next;
}

/**
 * The chat at its newest: the first page, with the live messages that arrived while it was
 * asked for (EARLY) merged in by id and the whole in order.
 */
export function openAtNewest(page: HistoryPage, early: readonly ChatMessage[] = []): HistoryWindow {
  const byId = new Map([...page.messages].reverse().map((m) => [m.id, m]));
  for (const m of early) byId.set(m.id, m);
  return {
    conversation: page.conversation,
    messages: [...byId.values()].sort((a, b) => a.messageId - b.messageId),
    oldestCursor: page.pageInfo.oldestCursor,
    newestCursor: null,
    edges: withEdges(new Map(), page),
    missed: [],
  };
}

/**
 * The page around message REF (its id, or its messageId as text); TARGET is the messageId of
 * that message in it (null: the page does not hold it).
 */
export function openAround(page: HistoryPage, ref: string): { window: HistoryWindow; target: number | null } {
  const target = page.messages.find((m) => m.id === ref || String(m.messageId) === ref);
  return {
    window: {
      conversation: page.conversation,
      messages: [...page.messages].reverse(),
      oldestCursor: page.pageInfo.oldestCursor,
      newestCursor: page.pageInfo.newestCursor,
      edges: withEdges(new Map(), page),
      missed: [],
    },
    target: target?.messageId ?? null,
  };
}

/** Lets the newest messages go beyond the window (an older page came in above). */
function trimNewest(w: HistoryWindow): HistoryWindow {
  if (w.messages.length <= WINDOW) return w;
  for (let i = WINDOW - 1; i > 0; i--) {
    const cursor = w.edges.get(w.messages[i]!.messageId);
    if (cursor) return { ...w, messages: w.messages.slice(0, i + 1), newestCursor: cursor };
  }
  return w;
}

/** Lets the oldest messages go beyond the window (a newer page came in below). */
function trimOldest(w: HistoryWindow): HistoryWindow {
  const n = w.messages.length;
  if (n <= WINDOW) return w;
  for (let i = n - WINDOW; i < n - 1; i++) {
    const cursor = w.edges.get(w.messages[i]!.messageId);
    if (cursor) return { ...w, messages: w.messages.slice(i), oldestCursor: cursor };
  }
  return w;
}

/**
 * Puts part of PAGE (SLICE: some of its messages, oldest first) in above ("older") or below
 * ("newer") what is shown; a page goes in a few slices, nearest first, and LAST says this is its
 * final one, when the page's cursor takes over that end. The window lets the far end go; the
 * newest page reached brings the live messages missed meanwhile with it.
 */
export function putSlice(
  w: HistoryWindow,
  page: HistoryPage,
  slice: readonly ChatMessage[],
  toward: "older" | "newer",
  last: boolean,
): HistoryWindow {
  const seen = new Set(w.messages.map((m) => m.id));
  const fresh = slice.filter((m) => !seen.has(m.id));
  const edges = withEdges(w.edges, page);
  if (toward === "older") {
    const next = { ...w, edges, messages: [...fresh, ...w.messages] };
    return trimNewest(last ? { ...next, oldestCursor: page.pageInfo.oldestCursor } : next);
  }
  const messages = [...w.messages, ...fresh];
  if (!last) return trimOldest({ ...w, edges, messages });
  let missed = w.missed;
  if (!page.pageInfo.newestCursor) {
    // caught up with the newest: live ones that came while this page was asked for follow it
    const newest = messages[messages.length - 1]?.messageId ?? 0;
    for (const m of missed) if (m.messageId > newest) messages.push(m);
    missed = [];
  }
  return trimOldest({ ...w, edges, messages, missed, newestCursor: page.pageInfo.newestCursor });
}

/** A page's messages in the order the slices take them: nearest to what is shown first. */
export function slicesOf(page: HistoryPage, toward: "older" | "newer", size: number): ChatMessage[][] {
  const incoming = [...page.messages].reverse(); // oldest first
  const slices: ChatMessage[][] = [];
  while (incoming.length) slices.push(toward === "older" ? incoming.splice(-size) : incoming.splice(0, size));
  return slices;
}

/** A live event's message is the same for every member: it leaves out my own poll votes, so the ones I know stay. */
export function keepMyVotes(known: ChatMessage, next: ChatMessage): ChatMessage {
  if (!next.poll || next.poll.myVotes !== undefined || known.poll?.myVotes === undefined) return next;
  return { ...next, poll: { ...next.poll, myVotes: known.poll.myVotes } };
}

/**
 * A message that arrived or changed live: a shown one is replaced (keeping my poll votes), a new
 * one joins the newest, or waits in `missed` while the newest are let go.
 */
export function upsertLive(w: HistoryWindow, m: ChatMessage): HistoryWindow {
  const i = w.messages.findIndex((x) => x.id === m.id);
  if (i >= 0) {
    const messages = w.messages.slice();
    messages[i] = keepMyVotes(w.messages[i]!, m);
    return { ...w, messages };
  }
  if (w.newestCursor) {
    // the newest are not shown: paging down reaches it (or this, if its page was asked for already)
    if (w.missed.some((x) => x.id === m.id)) return w;
    return { ...w, missed: [...w.missed.slice(-(MISSED_KEPT - 1)), m] };
  }
  return { ...w, messages: [...w.messages, m] };
}

/** A message this device sent, as the server confirmed it: shown with the newest unless the live event put it there first. */
export function appendSent(w: HistoryWindow, m: ChatMessage): HistoryWindow {
  if (w.newestCursor || w.messages.some((x) => x.id === m.id)) return w;
  return { ...w, messages: [...w.messages, m] };
}

/** The server's answer for a shown message (an edit, a pin): it replaces the shown one. */
export function replaceMessage(w: HistoryWindow, m: ChatMessage): HistoryWindow {
  return { ...w, messages: w.messages.map((x) => (x.id === m.id ? m : x)) };
}

/** A vote's answer: the poll may have closed (a live event) while the vote was answered, and closing is for good. */
export function applyVote(w: HistoryWindow, m: ChatMessage): HistoryWindow {
  const merge = (x: ChatMessage): ChatMessage =>
    x.poll?.isClosed && m.poll ? { ...m, poll: { ...m.poll, isClosed: true } } : m;
  return { ...w, messages: w.messages.map((x) => (x.id === m.id ? merge(x) : x)) };
}

export function removeMessage(w: HistoryWindow, id: string): HistoryWindow {
  return { ...w, messages: w.messages.filter((m) => m.id !== id) };
}

export function setReactions(w: HistoryWindow, id: string, reactions: ChatMessage["reactions"]): HistoryWindow {
  return { ...w, messages: w.messages.map((m) => (m.id === id ? { ...m, reactions } : m)) };
}

export function updateConversation(w: HistoryWindow, change: Partial<Conversation>): HistoryWindow {
  return { ...w, conversation: { ...w.conversation, ...change } };
}

export const holdsMessage = (w: HistoryWindow | null, id: string) => !!w?.messages.some((m) => m.id === id);

/**
 * How far another member has read, from a read event naming message ID: its messageId when it
 * is shown, else the id read as a number (NaN when it is neither).
 */
export function readUpToOf(w: HistoryWindow | null, id: string): number {
  return w?.messages.find((m) => m.id === id)?.messageId ?? Number(id);
}

/** The newest shown message someone else sent (0: none): reading the chat reads up to it. */
export function newestFromOthers(messages: readonly ChatMessage[], myId: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.sender.id !== myId) return messages[i]!.messageId;
  return 0;
}

/** The newest pinned message shown, else null. */
export function pinnedMessage(messages: readonly ChatMessage[]): ChatMessage | null {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.pinned) return messages[i]!;
  return null;
}

/**
 * The bot's keyboard under the input: the newest message of the other side that set or removed
 * one; none once I used the one-time keyboard of message USED.
 */
export function botKeyboard(messages: readonly ChatMessage[], myId: string, used: string | null): ReplyMarkup | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.sender.id === myId || !m.replyMarkup) continue;
    if (m.replyMarkup.remove_keyboard) return null;
    if (m.replyMarkup.keyboard) return used === m.id ? null : m.replyMarkup;
  }
  return null;
}

/** The id of the newest message of the other side that carries a keyboard, else null. */
export function keyboardOwner(messages: readonly ChatMessage[], myId: string): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.sender.id !== myId && m.replyMarkup?.keyboard) return m.id;
  }
  return null;
}

/** The newest message when it is the other side's and asks for an answer to itself (force_reply), else null. */
export function forcedReply(messages: readonly ChatMessage[], myId: string): ChatMessage | null {
  const newest = messages[messages.length - 1];
  return newest && newest.sender.id !== myId && newest.replyMarkup?.force_reply ? newest : null;
}

/**
 * The history is rendered in blocks of the messages whose messageId falls in the same run of
 * BLOCK: a block is memoised on its messages, so a page put in above or below (or a keystroke in
 * the input) renders and diffs only the blocks it changed, not the whole window.
 */
export const BLOCK = 40;

export function blocksOf(messages: readonly ChatMessage[]): ChatMessage[][] {
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

export const blockKey = (block: readonly ChatMessage[]) => Math.floor(block[0]!.messageId / BLOCK);

/**
 * How far the other side has read, as one block shows it: a block read through (or not at all)
 * keeps the same value as the marker moves, so only the block the marker is in renders again.
 */
export function blockReadUpTo(block: readonly ChatMessage[], readUpTo: number): number {
  const first = block[0]!.messageId;
  const last = block[block.length - 1]!.messageId;
  return Math.max(first - 1, Math.min(readUpTo, last));
}

/** FOUND (a messageId) when it falls in the block, else null. */
export function foundInBlock(block: readonly ChatMessage[], found: number | null): number | null {
  return found !== null && found >= block[0]!.messageId && found <= block[block.length - 1]!.messageId ? found : null;
}
