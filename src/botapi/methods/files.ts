import { uploadVisibleToBot } from "../../domain/bots/files";
import { fileKeyFromUrl } from "../../media/uploads";
import { renditionsOf } from "../../media/table";
import type { MethodTable } from "../context";
import { badRequest } from "../errors";

/**
 * getFile, a compatibility extension: file_id is already the file's URL (the spec), but bots
 * that download what a person sent call getFile and fetch `<root>/file/bot<TOKEN>/<file_path>`
 * (grammY's ctx.getFile, Telegraf's getFileLink, PTB's get_file().download()). The file_path
 * is the stored file's name; that route checks the token and that the bot may see the file.
 */
export const fileMethods = {
  async getFile({ app, me, params }) {
    const fileId = params.str("file_id", { required: true })!;
    const key = fileKeyFromUrl(app, fileId);
    const upload = key ? await uploadVisibleToBot(app.db, me.id, key) : undefined;
    if (!key || !upload) throw badRequest("invalid file_id");
    // the original's size, or a display rendition's as listed; thumbnails and posters have none recorded
    const size =
      upload.storage_key === key
        ? upload.size_bytes
        : renditionsOf(upload).find((r) => fileKeyFromUrl(app, r.url) === key)?.size;
    return { file_id: fileId, file_unique_id: fileId, file_size: size, file_path: key };
  },
} satisfies MethodTable;
