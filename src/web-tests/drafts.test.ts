import { describe, expect, test } from "bun:test";
import { chatDraft, createDraftStore, MAX_DRAFTS, POST_DRAFT } from "../web/lib/drafts";

// The drafts kept on the device, in process over a Storage that lives in memory.
class MemoryStorage implements Storage {
  private items = new Map<string, string>();
  /** when set, every write throws as a full localStorage does */
  full = false;
  get length() {
    return this.items.size;
  }
  key(i: number) {
    return [...this.items.keys()][i] ?? null;
  }
  getItem(k: string) {
    return this.items.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    if (this.full) throw new DOMException("quota", "QuotaExceededError");
    this.items.set(k, String(v));
  }
  removeItem(k: string) {
    this.items.delete(k);
  }
  clear() {
    this.items.clear();
  }
}

function store() {
  const storage = new MemoryStorage();
  let clock = 1_000;
  const drafts = createDraftStore(storage, () => clock++);
  return { storage, drafts };
}

describe("drafts on the device", () => {
  test("kept per account and per chat; an empty draft is removed", () => {
    const { storage, drafts } = store();
    drafts.write("ann", POST_DRAFT, { text: "Half a thought", contentWarning: "spoilers" });
    drafts.write("ann", chatDraft("c1"), { text: "see you at" });
    drafts.write("bob", chatDraft("c1"), { text: "bob's own" });
    expect(drafts.read("ann", POST_DRAFT)).toEqual({
      text: "Half a thought",
      contentWarning: "spoilers",
      savedAt: 1000,
    });
    expect(drafts.read("ann", chatDraft("c1"))?.text).toBe("see you at");
    expect(drafts.read("bob", chatDraft("c1"))?.text).toBe("bob's own");
    expect(drafts.read("ann", chatDraft("c2"))).toBeNull();
    expect(drafts.read("bob", POST_DRAFT)).toBeNull();

    // a content warning alone is worth keeping; blank text and warning are not
    drafts.write("ann", POST_DRAFT, { text: "", contentWarning: "cw only" });
    expect(drafts.read("ann", POST_DRAFT)?.contentWarning).toBe("cw only");
    drafts.write("ann", POST_DRAFT, { text: "  \n", contentWarning: " " });
    expect(drafts.read("ann", POST_DRAFT)).toBeNull();
    drafts.remove("ann", chatDraft("c1"));
    expect(drafts.read("ann", chatDraft("c1"))).toBeNull();
    expect(storage.length).toBe(1);
  });

  test("at most MAX_DRAFTS per account: the least recently written go first", () => {
    const { drafts } = store();
    for (let i = 0; i < MAX_DRAFTS; i++) drafts.write("ann", chatDraft(`c${i}`), { text: `draft ${i}` });
    // rewriting the oldest makes it the newest
    drafts.write("ann", chatDraft("c0"), { text: "draft 0, again" });
    drafts.write("bob", chatDraft("x"), { text: "another account's" });
    drafts.write("ann", chatDraft("new"), { text: "one too many" });
    expect(drafts.read("ann", chatDraft("c1"))).toBeNull();
    expect(drafts.read("ann", chatDraft("c0"))?.text).toBe("draft 0, again");
    expect(drafts.read("ann", chatDraft("c2"))?.text).toBe("draft 2");
    expect(drafts.read("ann", chatDraft("new"))?.text).toBe("one too many");
    expect(drafts.read("bob", chatDraft("x"))?.text).toBe("another account's");
  });

  test("removeAll takes one account's drafts only", () => {
    const { drafts } = store();
    drafts.write("ann", POST_DRAFT, { text: "a" });
    drafts.write("ann", chatDraft("c"), { text: "b" });
    drafts.write("annie", POST_DRAFT, { text: "c" });
    drafts.removeAll("ann");
    expect(drafts.read("ann", POST_DRAFT)).toBeNull();
    expect(drafts.read("ann", chatDraft("c"))).toBeNull();
    expect(drafts.read("annie", POST_DRAFT)?.text).toBe("c");
  });

  test("full or missing storage and damaged entries lose drafts quietly", () => {
    const { storage, drafts } = store();
    storage.full = true;
    drafts.write("ann", POST_DRAFT, { text: "nowhere to go" });
    expect(drafts.read("ann", POST_DRAFT)).toBeNull();
    storage.full = false;
    storage.setItem("drafts.v1:ann:post", "{not json");
    expect(drafts.read("ann", POST_DRAFT)).toBeNull();
    storage.setItem("drafts.v1:ann:post", JSON.stringify({ text: 5 }));
    expect(drafts.read("ann", POST_DRAFT)).toBeNull();
    const none = createDraftStore(null);
    none.write("ann", POST_DRAFT, { text: "x" });
    expect(none.read("ann", POST_DRAFT)).toBeNull();
  });
});
