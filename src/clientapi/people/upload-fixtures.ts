import type { App } from "../../app";
import { storeUpload, type UploadKind } from "../../media/uploads";
import { pngOf, wavHead } from "../uploads/fixtures";

/** Stores a small real file for OWNER the way POST /api/account/upload does and returns its URL. */
export async function uploadFor(app: App, ownerId: number, kind: UploadKind): Promise<string> {
  const data = kind.endsWith("voice") ? new Uint8Array([...wavHead(800), ...new Uint8Array(800).fill(0x80)]) : await pngOf(app, 8, 6);
  const row = await storeUpload(app, { ownerId, kind, data });
  return row.url;
}
