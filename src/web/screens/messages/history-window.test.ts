import { describe, expect, test } from "bun:test";
import {
  appendSent,
  applyVote,
  blockKey,
  blockReadUpTo,
  blocksOf,
  botKeyboard,
  forcedReply,
  foundInBlock,
  keyboardOwner,
  newestFromOthers,
  openAround,
  openAtNewest,
  pinnedMessage,
  putSlice,
  readUpToOf,
  removeMessage,
  replaceMessage,
  setReactions,
  slicesOf,
  updateConversation,
  upsertLive,
  WINDOW,
  type HistoryPage,
  type HistoryWindow,
} from "./history-window";
import type { ChatMessage, ChatPoll, Conversation } from "../../lib/types";

const ME = "u-me";
const OTHER = "u-other";

const conversation: Conversation = {
  id: "c1",
  conversationId: "c1",
  type: "private",
  title: "Other",
  description: null,
  photoUrl: null,
  otherUser: { id: OTHER, username: "other", displayName: "Other", avatarUrl: null, isBot: false },
  memberCount: 2,
  myRole: null,
  myRights: {},
  lastReadMessageId: 0,
  lastMessageAt: null,
  createdAt: "2026-01-01T00:00:00.000Z",
};

function message(messageId: number, extra: Partial<ChatMessage> = {}): ChatMessage {
  const from = extra.sender?.id ?? (messageId % 2 ? OTHER : ME);
  return {
    id: `m${messageId}`,
    messageId,
    conversationId: "c1",
    kind: "user",
    content: `text ${messageId}`,
    entities: [],
    media: [],
    replyMarkup: null,
    invoice: null,
    system: null,
    sender: { id: from, username: from, displayName: from, avatarUrl: null, isBot: false, isSystem: false },
    replyToId: null,
    replyTo: null,
    forwardedFrom: null,
    reactions: [],
    pinned: false,
    createdAt: new Date(Date.UTC(2026, 0, 1) + messageId * 60_000).toISOString(),
    editedAt: null,
    clientMessageId: null,
    ...extra,
  };
}

/**
 * The server's page of messages FROM..TO (inclusive, newest first) of a chat whose messages run
 * 1..LAST: its cursors (a position, read before or after it) lead on where there is more, as the endpoint's do.
 */
function page(from: number, to: number, last = 1000): HistoryPage {
  const messages: ChatMessage[] = [];
  for (let id = to; id >= from; id--) messages.push(message(id));
  return {
    conversation,
    messages,
    pageInfo: { oldestCursor: from > 1 ? `at-${from}` : null, newestCursor: to < last ? `at-${to}` : null },
  };
}

const ids = (w: HistoryWindow) => w.messages.map((m) => m.messageId);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Puts a whole page in, slice by slice as the chat view does. */
function putPage(w: HistoryWindow, p: HistoryPage, toward: "older" | "newer", size = 20): HistoryWindow {
  const slices = slicesOf(p, toward, size);
  slices.forEach((slice, i) => (w = putSlice(w, p, slice, toward, i === slices.length - 1)));
  return w;
}

const poll = (extra: Partial<ChatPoll> = {}): ChatPoll => ({
  id: "p1",
  question: "Tea or coffee?",
  options: [
    { index: 0, text: "Tea", voterCount: 1 },
    { index: 1, text: "Coffee", voterCount: 0 },
  ],
  totalVoterCount: 1,
  isClosed: false,
  isAnonymous: false,
  type: "regular",
  allowsMultipleAnswers: false,
  allowsRevoting: true,
  correctOptionId: null,
  explanation: null,
  ...extra,
});

describe("opening a chat", () => {
  test("at the newest: oldest first, with the live messages that came while it was asked for", () => {
    // 1001 arrived live before the answer, 999 came live as an edit of a message the page holds
    const edited = message(999, { content: "edited" });
    const w = openAtNewest(page(961, 1000), [message(1001), edited]);
    expect(ids(w)).toEqual(range(961, 1001));
    expect(w.messages.find((m) => m.messageId === 999)!.content).toBe("edited");
    expect(w.oldestCursor).toBe("at-961");
    expect(w.newestCursor).toBeNull();
    expect(w.missed).toEqual([]);
  });

  test("a short chat has no older cursor: its beginning is shown", () => {
    const w = openAtNewest(page(1, 3, 3));
    expect(ids(w)).toEqual([1, 2, 3]);
    expect(w.oldestCursor).toBeNull();
  });

  test("around a message: both cursors lead on, the target is found by id or by number", () => {
    const { window, target } = openAround(page(480, 520), "m500");
    expect(ids(window)).toEqual(range(480, 520));
    expect(target).toBe(500);
    expect(window.oldestCursor).toBe("at-480");
    expect(window.newestCursor).toBe("at-520");
    expect(openAround(page(480, 520), "510").target).toBe(510);
    // deleted meanwhile: the page comes, the target does not
    expect(openAround(page(480, 520), "m9999").target).toBeNull();
  });
});

describe("paging", () => {
  test("slices go in nearest first: the newest of an older page, the oldest of a newer one", () => {
    const p = page(901, 950);
    expect(slicesOf(p, "older", 20).map((s) => [s[0]!.messageId, s.at(-1)!.messageId])).toEqual([
      [931, 950],
      [911, 930],
      [901, 910],
    ]);
    expect(slicesOf(p, "newer", 20).map((s) => [s[0]!.messageId, s.at(-1)!.messageId])).toEqual([
      [901, 920],
      [921, 940],
      [941, 950],
    ]);
  });

  test("an older page goes in above; its cursor takes over only with its last slice", () => {
    let w = openAtNewest(page(961, 1000));
    const p = page(921, 960);
    const [first, second] = slicesOf(p, "older", 20);
    w = putSlice(w, p, first!, "older", false);
    expect(ids(w)).toEqual(range(941, 1000));
    expect(w.oldestCursor).toBe("at-961");
    w = putSlice(w, p, second!, "older", true);
    expect(ids(w)).toEqual(range(921, 1000));
    expect(w.oldestCursor).toBe("at-921");
    expect(w.newestCursor).toBeNull();
  });

  test("a message already shown is not put in twice (pages overlapping after a live message)", () => {
    let w = openAtNewest(page(961, 1000));
    w = putPage(w, page(950, 965), "older");
    expect(ids(w)).toEqual(range(950, 1000));
  });

  test("reading far back lets the newest go at a page's edge, and the window says where they go on", () => {
    let w = openAtNewest(page(961, 1000));
    for (let to = 960; to > 760; to -= 40) w = putPage(w, page(to - 39, to), "older");
    // 240 loaded: the newest page (961..1000) is let go whole, cut where a cursor leads on
    expect(w.messages.length).toBeLessThanOrEqual(WINDOW);
    expect(ids(w)).toEqual(range(761, 960));
    expect(w.newestCursor).toBe("at-960");
    expect(w.oldestCursor).toBe("at-761");
  });

  test("reading back down lets the oldest go, and reaching the newest brings the live ones missed meanwhile", () => {
    let w = openAround(page(481, 520), "m500").window;
    // a live message while the newest are not shown waits, once
    w = upsertLive(w, message(1001));
    w = upsertLive(w, message(1001));
    expect(ids(w)).toEqual(range(481, 520));
    expect(w.missed.map((m) => m.messageId)).toEqual([1001]);
    for (let from = 521; from <= 1000; from += 40) w = putPage(w, page(from, from + 39), "newer");
    expect(w.newestCursor).toBeNull();
    expect(w.messages.at(-1)!.messageId).toBe(1001);
    expect(w.missed).toEqual([]);
    expect(w.messages.length).toBeLessThanOrEqual(WINDOW);
    // the oldest were let go at a page's edge, and the older cursor leads back to them
    expect(w.oldestCursor).toBe(`at-${w.messages[0]!.messageId}`);
    expect(ids(w)).toEqual(range(w.messages[0]!.messageId, 1001));
  });

  test("a missed message the newest page already holds is not shown twice", () => {
    let w = openAround(page(900, 960), "m930").window;
    w = upsertLive(w, message(990));
    w = putPage(w, page(961, 1000), "newer");
    expect(ids(w)).toEqual(range(900, 1000));
  });
});

describe("live changes", () => {
  test("a new message joins the newest; a known one is replaced in place", () => {
    let w = openAtNewest(page(991, 1000));
    w = upsertLive(w, message(1001));
    w = upsertLive(w, message(995, { content: "changed" }));
    expect(ids(w)).toEqual(range(991, 1001));
    expect(w.messages[4]!.content).toBe("changed");
  });

  test("a live poll update keeps the votes I know (the event leaves them out)", () => {
    let w = openAtNewest({ ...page(1, 1, 1), messages: [message(1, { poll: poll({ myVotes: [0] }) })] });
    w = upsertLive(w, message(1, { poll: poll({ totalVoterCount: 2 }) }));
    expect(w.messages[0]!.poll).toMatchObject({ totalVoterCount: 2, myVotes: [0] });
    // the answer to my own vote carries my votes: they win
    w = upsertLive(w, message(1, { poll: poll({ myVotes: [] }) }));
    expect(w.messages[0]!.poll!.myVotes).toEqual([]);
  });

  test("a vote's answer does not reopen a poll that closed meanwhile", () => {
    let w = openAtNewest({ ...page(1, 1, 1), messages: [message(1, { poll: poll() })] });
    w = upsertLive(w, message(1, { poll: poll({ isClosed: true }) }));
    w = applyVote(w, message(1, { poll: poll({ myVotes: [1], totalVoterCount: 2 }) }));
    expect(w.messages[0]!.poll).toMatchObject({ isClosed: true, myVotes: [1], totalVoterCount: 2 });
  });

  test("what I sent shows once, and not while the newest are let go", () => {
    let w = openAtNewest(page(991, 1000));
    w = appendSent(w, message(1001));
    w = appendSent(w, message(1001));
    expect(ids(w)).toEqual(range(991, 1001));
    const far = openAround(page(100, 140), "m120").window;
    expect(appendSent(far, message(1002))).toBe(far);
  });

  test("deletions, reactions, edits and the chat's own changes", () => {
    let w = openAtNewest(page(991, 1000));
    w = removeMessage(w, "m995");
    expect(ids(w)).not.toContain(995);
    w = setReactions(w, "m996", [{ emoji: "👍", count: 1, userIds: [ME] }]);
    expect(w.messages.find((m) => m.id === "m996")!.reactions[0]!.emoji).toBe("👍");
    w = replaceMessage(w, message(997, { pinned: true }));
    expect(pinnedMessage(w.messages)!.messageId).toBe(997);
    w = updateConversation(w, { title: "Renamed" });
    expect(w.conversation).toMatchObject({ title: "Renamed", id: "c1" });
  });
});

describe("what the view derives", () => {
  test("the read marker: the newest message of someone else, and how far another member read", () => {
    const w = openAtNewest(page(991, 1000));
    expect(newestFromOthers(w.messages, ME)).toBe(999);
    expect(newestFromOthers([message(2)], ME)).toBe(0);
    expect(readUpToOf(w, "m995")).toBe(995);
    expect(readUpToOf(w, "1200")).toBe(1200);
    expect(readUpToOf(w, "gone")).toBeNaN();
  });

  test("the newest pinned message", () => {
    expect(pinnedMessage([message(1, { pinned: true }), message(2, { pinned: true }), message(3)])!.messageId).toBe(2);
    expect(pinnedMessage([message(1)])).toBeNull();
  });

  test("the bot's keyboard: the newest that set or removed one, gone once a one-time keyboard is used", () => {
    const keyboard = { keyboard: [["Yes", "No"]], one_time_keyboard: true };
    const set = message(1, { replyMarkup: keyboard });
    const mine = message(2, { sender: { ...set.sender, id: ME } });
    expect(botKeyboard([set, mine], ME, null)).toEqual(keyboard);
    expect(keyboardOwner([set, mine], ME)).toBe("m1");
    expect(botKeyboard([set, mine], ME, "m1")).toBeNull();
    expect(botKeyboard([set, message(3, { replyMarkup: { remove_keyboard: true } })], ME, null)).toBeNull();
    // a keyboard in a message of my own is not shown to me
    expect(botKeyboard([message(4, { replyMarkup: keyboard })], ME, null)).toBeNull();
  });

  test("force_reply asks for an answer only when it is the other side's newest message", () => {
    const asks = message(1, { replyMarkup: { force_reply: true } });
    expect(forcedReply([asks], ME)).toBe(asks);
    expect(forcedReply([asks, message(2)], ME)).toBeNull();
    expect(forcedReply([], ME)).toBeNull();
  });

  test("blocks group messages by runs of messageId, so a page put in changes only its own blocks", () => {
    const w = openAtNewest(page(30, 125));
    const blocks = blocksOf(w.messages);
    expect(blocks.map((b) => [b[0]!.messageId, b.at(-1)!.messageId])).toEqual([
      [30, 39],
      [40, 79],
      [80, 119],
      [120, 125],
    ]);
    const more = blocksOf(putPage(w, page(1, 29), "older").messages);
    // the first block took the new page in; the others hold the very same messages as before
    expect(more.map(blockKey)).toEqual(blocks.map(blockKey));
    expect(more[0]!.map((m) => m.messageId)).toEqual(range(1, 39));
    for (const i of [1, 2, 3]) expect(more[i]!.every((m, j) => m === blocks[i]![j])).toBe(true);
    // the read marker as each block sees it: read through, inside, not reached
    expect(blocks.map((b) => blockReadUpTo(b, 100))).toEqual([39, 79, 100, 119]);
    expect(blocks.map((b) => foundInBlock(b, 85))).toEqual([null, null, 85, null]);
    expect(foundInBlock(blocks[0]!, null)).toBeNull();
  });
});
