import { computed, signal } from "@preact/signals";
import { api, ApiError, fetchCsrf, onUnauthorized, type InstanceInfo } from "./api";
import { drafts } from "./drafts";
import { loadIdentity } from "./instance";
import { startRealtime, stopRealtime } from "./realtime";
import type { Account } from "./types";

/** The signed-in account: undefined while the first check runs, null when signed out. */
export const account = signal<Account | null | undefined>(undefined);
export const signedIn = computed(() => !!account.value);
/** Registration mode and captcha, from GET /api/auth/csrf. */
export const instance = signal<InstanceInfo | null>(null);

/** Marks the session as started with ACCOUNT (after sign-in, registration or a QR claim). */
export function sessionStarted(next: Account): void {
  account.value = next;
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

/** First load: instance info and identity, and the current session. */
export async function bootSession(): Promise<void> {
  onUnauthorized(sessionEnded);
  // without its identity the app still works, under the product's name
  const [info] = await Promise.all([fetchCsrf(), recheckSession(), loadIdentity().catch(() => null)]);
  instance.value = info;
}
