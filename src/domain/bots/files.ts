import type { Db } from "../../db";
import type { UploadRow } from "../../media/table";
import { FILE_NAME } from "../../media/uploads";

/**
 * The upload behind stored file KEY (its main file, thumbnail `-t` or poster `-p`), if the
 * bot may download it: the bot sent it, or it is in a message of a chat the bot is (or was)
 * in. Keys share their 24 random characters with the main file, so one indexed range finds it.
 */
export async function uploadVisibleToBot(db: Db, botUserId: number, key: string): Promise<UploadRow | undefined> {
  if (!FILE_NAME.test(key)) return undefined;
  const stem = key.slice(0, 24);
  // the main key is `<stem>.<ext>`: "." < "/" bounds the range to exactly those keys
  const upload = await db
    .selectFrom("uploads")
    .selectAll()
    .where("storage_key", ">", `${stem}.`)
    .where("storage_key", "<", `${stem}/`)
    .executeTakeFirst();
  if (!upload) return undefined;
  if (upload.owner_id === botUserId) return upload;
  // profile pictures are public (getUserProfilePhotos)
  if (
    upload.kind === "avatar" &&
    (await db.selectFrom("users").select("id").where("avatar_url", "=", upload.url).executeTakeFirst())
  )
    return upload;
  const seen = await db
    .selectFrom("messages as m")
    .innerJoin("conversation_members as cm", (j) =>
      j.onRef("cm.conversation_id", "=", "m.conversation_id").on("cm.user_id", "=", botUserId),
    )
    .select("m.id")
    .where("m.deleted_at", "is", null)
    .where("m.media", "like", `%/files/${stem}%`)
    .limit(1)
    .executeTakeFirst();
  return seen ? upload : undefined;
}
