import { afterAll, beforeAll, expect, test } from "bun:test";
import { UPLOAD_KINDS, type UploadKind } from "../../media/kinds";
import { signedInClient } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { MP4_HEAD, jpegWithGps, padTo, wavHead } from "../../testing/media";
import { postUpload } from "../../testing/uploads";

let s: TestServer;
let alice: Awaited<ReturnType<typeof signedInClient>>;

beforeAll(async () => {
  s = await startTestServer();
  alice = await signedInClient(s);
});
afterAll(() => s.stop());

/** A valid file of the kind's class, exactly SIZE bytes. */
async function fileOfSize(kind: UploadKind, size: number): Promise<Uint8Array> {
  const accepts = UPLOAD_KINDS[kind].accepts as readonly string[];
  if (accepts.length > 1) return new Uint8Array(size);
  if (accepts[0] === "image") return padTo(await jpegWithGps(s.app), size);
  if (accepts[0] === "video") return padTo(MP4_HEAD, size);
  return padTo(wavHead(size - 44), size);
}

/**
 * One kind of each distinct limit and set of accepted types: a kind is read only for its limit
 * and its types, so kinds alike in both take the same path with the same numbers (the file of
 * each boundary is the kind's largest file, sent twice).
 */
const ONE_OF_EACH_LIMIT = [
  ...new Map(
    (Object.keys(UPLOAD_KINDS) as UploadKind[]).map((kind) => {
      const { maxBytes, accepts } = UPLOAD_KINDS[kind];
      return [`${maxBytes} ${accepts.join()}`, kind] as const;
    }),
  ).values(),
];

test.each(ONE_OF_EACH_LIMIT)(
  "%s takes a file of exactly its limit and refuses one byte more",
  async (kind) => {
    const limit = UPLOAD_KINDS[kind].maxBytes;
    const atLimit = await fileOfSize(kind, limit);
    const ok = await postUpload(alice.client, kind, atLimit);
    expect(ok.status).toBe(200);
    expect(ok.body.data.kind).toBe(kind);
    // images are re-encoded (smaller); everything else is stored byte for byte
    if (UPLOAD_KINDS[kind].accepts.length > 1 || UPLOAD_KINDS[kind].accepts[0] !== "image")
      expect(ok.body.data.sizeBytes).toBe(limit);

    const over = await postUpload(alice.client, kind, padTo(atLimit, limit + 1));
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe("VALIDATION_ERROR");
    expect(over.body.error.details.fieldErrors.file).toEqual([
      `must be at most ${limit / 1024 / 1024} MB (${limit} bytes) for kind "${kind}"`,
    ]);
  },
  60_000,
);
