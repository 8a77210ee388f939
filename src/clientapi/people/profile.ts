import { defineService, type App } from "../../app";
import { KEY_SPACES } from "../../cache/changed-keys";
import { keyedCacheFor, cachedJson } from "../../cache/answers";
import { cachedProfilesOf, loadProfileByUsername, PROFILE_SOURCES } from "../../domain/profiles/service";
import { usernameKey } from "../../domain/users/service";
import type { SetHeaders } from "../../http/envelope";
import { profileJson } from "./serialize";

/** Most profile answers kept per App (≈ 0.5 KB each). */
const MAX_CACHED_ANSWERS = 5_000;

/**
 * The App's profile answers as JSON text, by viewer and username, each dropped when a write
 * names the profile's account (PROFILE_SOURCES); none on PostgreSQL.
 */
const answersCacheService = defineService("profiles:cached-answers", (app) =>
  keyedCacheFor<string>(app, "profiles", PROFILE_SOURCES, MAX_CACHED_ANSWERS),
);

/** The App's kept profile answers (null on PostgreSQL), for tests. */
export const cachedProfileAnswersOf = (app: App) => app.services.get(answersCacheService);

/**
 * `{profile}` of USERNAME as VIEWER sees it, as JSON text: the answer kept since no row it was
 * read from changed (no statement on the database), else read (one statement when the shown
 * columns are kept, answered without a promise on SQLite) and kept when read in the same step.
 */
export function profileResponse(
  app: App,
  set: SetHeaders,
  viewerId: number,
  username: string,
): string | Promise<string> {
  const answers = app.services.get(answersCacheService);
  const key = `${viewerId}:${usernameKey(username)}`;
  return cachedJson(answers, set, key, () => {
    const view = loadProfileByUsername(app.db, cachedProfilesOf(app), viewerId, username);
    if (view instanceof Promise) return view.then((v) => profileJson(set, v));
    const text = profileJson(set, view);
    return { text, cache: { text, dependsOn: [{ space: KEY_SPACES.accounts, key: view.user.id }] } };
  });
}
