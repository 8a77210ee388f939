import { computed, signal } from "@preact/signals";
import { api, ApiError, keepCsrfToken, onUnauthorized } from "./api";
import { drafts } from "./drafts";
import { applyAccountLanguage } from "./i18n";
import { identity } from "./instance";
import { startRealtime, stopRealtime } from "./realtime";
import type { Account, InstanceInfo, StartData } from "./types";

/** The signed-in account: undefined while the first check runs, null when signed out. */
export const account = signal<Account | null | undefined>(undefined);
export const signedIn = computed(() => !!account.value);
/** Registration mode and captcha, from GET /api/start. */
export const instance = signal<InstanceInfo | null>(null);

/** Marks the session as started with ACCOUNT (after sign-in, registration or a QR claim). */
export function sessionStarted(next: Account): void {
  account.value = next;
  void applyAccountLanguage(next.language);
  startRealtime(recheckSession);
}

function sessionEnded(): void {
  stopRealtime();
  account.value = null;
}

/** Asks the server who is signed in; a 401 means nobody. */
export async function recheckSession(): Promise<void> {
  try {
    const { account: me } = await api.get<{ account: Account }>("/auth/me");
    if (!account.value || account.value.id !== me.id) sessionStarted(me);
    else account.value = me;
  } catch (err) {
    if (
      err instanceof ApiError &&
      (err.code === "UNAUTHORIZED" || err.code === "ACCOUNT_DISABLED" || err.code === "DEVICE_BANNED")
    )
      sessionEnded();
    else if (account.value === undefined) throw err;
  }
}

/** Ends the session; the account's drafts leave the device with it (it may be a shared one). */
export async function signOut(): Promise<void> {
  const id = account.value?.id;
  try {
    await api.post("/auth/logout");
  } finally {
    if (id) drafts.removeAll(id);
    sessionEnded();
  }
}

type UnreadCounts = NonNullable<StartData["unread"]>;

/** The start's unread counts not yet taken by their badge. */
let startUnread: Partial<UnreadCounts> = {};

/**
 * The unread count of WHICH that the app's start brought, once: the header's badge shows it
 * instead of asking the server again. Later (after a sign-in, a remount) it is undefined and
 * the badge asks.
 */
export function takeStartUnread(which: keyof UnreadCounts): number | undefined {
  const n = startUnread[which];
  delete startUnread[which];
  return n;
}

/** First load: instance info and identity, the current session and the header's counts, in one request. */
export async function bootSession(): Promise<void> {
  onUnauthorized(sessionEnded);
  const { instance: info, account: me, unread, ...csrf } = await api.get<StartData>("/start");
  keepCsrfToken(csrf.csrfToken);
  instance.value = csrf;
  identity.value = info;
  startUnread = unread ?? {};
  if (me) sessionStarted(me);
  else account.value = null;
}
