import type { App } from "../../app";
import { validationError, type FieldErrors } from "../../lib/errors";
import { markAttached, resolveOwnUpload } from "../../media/uploads";
import type { UserRow } from "../users/table";
import { assertContentAllowed } from "../moderation/service";
import { collectFieldErrors } from "./field-errors";

export const BIO_MAX = 300;
export const DISPLAY_NAME_MAX = 64;

export interface ProfilePatch {
  displayName?: string;
  bio?: string;
  /** null clears the picture */
  avatarUrl?: string | null;
  coverUrl?: string | null;
  coverVideoUrl?: string | null;
}

/** Which upload kind each profile picture field takes. */
const PICTURE_FIELDS = [
  ["avatarUrl", "avatar_url", "avatar"],
  ["coverUrl", "cover_url", "cover"],
  ["coverVideoUrl", "cover_video_url", "cover-video"],
] as const;

/**
 * Changes the person's own profile. Pictures must be the person's own uploads of the
 * matching kind (avatar, cover, cover-video); null removes one. Name and bio pass the
 * instance's word list (CONTENT_REJECTED). Nothing changes unless every field is valid.
 */
export async function updateProfile(app: App, user: UserRow, patch: ProfilePatch): Promise<UserRow> {
  const errors: FieldErrors = {};
  const set: Record<string, string | null | number> = {};
  if (patch.displayName !== undefined) {
    const name = patch.displayName.trim();
    if (name.length === 0 || [...name].length > DISPLAY_NAME_MAX)
      errors.displayName = [`must be 1 to ${DISPLAY_NAME_MAX} characters`];
    else set.display_name = name;
  }
  if (patch.bio !== undefined) {
    const bio = patch.bio.trim();
    if ([...bio].length > BIO_MAX) errors.bio = [`must be at most ${BIO_MAX} characters`];
    else set.bio = bio;
  }
  const attach: number[] = [];
  for (const [field, column, kind] of PICTURE_FIELDS) {
    const url = patch[field];
    if (url === undefined) continue;
    if (url === null) {
      set[column] = null;
      continue;
    }
    const upload = await collectFieldErrors(errors, () => resolveOwnUpload(app, url, user.id, [kind], field));
    if (!upload) continue;
    set[column] = upload.url;
    attach.push(upload.id);
  }
  if (Object.keys(errors).length) throw validationError(errors);
  // the instance's word list applies to what others read on the profile too
  if (typeof set.display_name === "string") assertContentAllowed(app, "displayName", set.display_name);
  if (typeof set.bio === "string") assertContentAllowed(app, "bio", set.bio);
  if (Object.keys(set).length === 0) return user;
  const now = app.clock.now();
  const updated = await app.db
    .updateTable("users")
    .set({ ...set, updated_at: now })
    .where("id", "=", user.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  for (const id of attach) await markAttached(app.db, id, now);
  return updated;
}
