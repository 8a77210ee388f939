/**
 * Unsent text kept on the device: the post composer's and each chat's, per account, so a
 * reload or a closed tab loses nothing. One storage entry per draft, so typing rewrites only
 * its own; the oldest drafts beyond MAX_DRAFTS per account are let go. Storage that is full
 * or switched off loses drafts quietly: they are a convenience, never the only copy of anything sent.
 */

export interface Draft {
  text: string;
  /** the post composer's content warning */
  contentWarning?: string;
  /** when it was last written (ms since the epoch), for letting the oldest go */
  savedAt: number;
}

export type DraftContent = Omit<Draft, "savedAt">;

/** How many drafts an account keeps on a device. */
export const MAX_DRAFTS = 50;

const PREFIX = "drafts.v1:";
const entryKey = (accountId: string, key: string) => `${PREFIX}${accountId}:${key}`;

/** The draft key of the post composer. */
export const POST_DRAFT = "post";
/** The draft key of chat CONVERSATIONID. */
export const chatDraft = (conversationId: string) => `chat:${conversationId}`;

function parse(raw: string | null): Draft | null {
  if (!raw) return null;
  try {
    const d = JSON.parse(raw) as Partial<Draft>;
    return typeof d.text === "string" && typeof d.savedAt === "number"
      ? {
          text: d.text,
          savedAt: d.savedAt,
          ...(typeof d.contentWarning === "string" ? { contentWarning: d.contentWarning } : {}),
        }
      : null;
  } catch {
    return null;
  }
}

const isEmpty = (d: DraftContent) => !d.text.trim() && !d.contentWarning?.trim();

/** Drafts in STORAGE (localStorage in the app; any Storage in tests), timed by NOW. */
export function createDraftStore(storage: Storage | null, now: () => number = Date.now) {
  const safely = <T>(fn: (s: Storage) => T, otherwise: T): T => {
    if (!storage) return otherwise;
    try {
      return fn(storage);
    } catch {
      return otherwise;
    }
  };
  /** the storage keys of ACCOUNTID's drafts */
  const keysOf = (s: Storage, accountId: string) => {
    const own = `${PREFIX}${accountId}:`;
    const keys: string[] = [];
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      if (k?.startsWith(own)) keys.push(k);
    }
    return keys;
  };

  return {
    read(accountId: string, key: string): Draft | null {
      return safely((s) => parse(s.getItem(entryKey(accountId, key))), null);
    },

    /** Keeps CONTENT as the draft of KEY; an empty one removes the draft. */
    write(accountId: string, key: string, content: DraftContent): void {
      if (isEmpty(content)) return this.remove(accountId, key);
      safely((s) => {
        const k = entryKey(accountId, key);
        const isNew = s.getItem(k) === null;
        const draft: Draft = { text: content.text, savedAt: now() };
        if (content.contentWarning?.trim()) draft.contentWarning = content.contentWarning;
        s.setItem(k, JSON.stringify(draft));
        if (isNew) {
          const all = keysOf(s, accountId);
          if (all.length > MAX_DRAFTS) {
            const byAge = all
              .map((key) => ({ key, at: parse(s.getItem(key))?.savedAt ?? 0 }))
              .sort((a, b) => a.at - b.at);
            for (const old of byAge.slice(0, all.length - MAX_DRAFTS)) s.removeItem(old.key);
          }
        }
      }, undefined);
    },

    remove(accountId: string, key: string): void {
      safely((s) => s.removeItem(entryKey(accountId, key)), undefined);
    },

    /** Every draft of ACCOUNTID on this device (at sign-out). */
    removeAll(accountId: string): void {
      safely((s) => keysOf(s, accountId).forEach((k) => s.removeItem(k)), undefined);
    },
  };
}

export type DraftStore = ReturnType<typeof createDraftStore>;

/** The app's drafts, in this browser's localStorage (none where the browser keeps no storage). */
export const drafts = createDraftStore(
  (() => {
    try {
      return typeof localStorage === "undefined" ? null : localStorage;
    } catch {
      return null;
    }
  })(),
);
