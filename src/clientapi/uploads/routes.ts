import { t } from "elysia";
import { doc } from "../docs";
import { Upload } from "../schemas";
import { Elysia } from "elysia";
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../app";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { fieldError } from "../../lib/errors";
import { randomToken } from "../../lib/ids";
import { MAX_UPLOAD_BYTES, UPLOAD_KINDS, isUploadKind, type UploadKind } from "../../media/kinds";
import { MultipartError, multipartBoundary, readMultipart } from "../../media/multipart";
import { scratchDir } from "../../media/store";
import { fileTooLarge, storeUpload } from "../../media/uploads";
import { serializeUpload } from "./serialize";

/** multipart framing and small fields around the file: the slack allowed over a kind's limit */
const FRAMING_SLACK = 64 * 1024;
const MAX_FIELD_BYTES = 1024;

const unknownKind = () => fieldError("kind", `must be one of ${Object.keys(UPLOAD_KINDS).join(", ")}`);

function parseKind(raw: string | null | undefined): UploadKind | null {
  if (raw === null || raw === undefined) return null;
  if (!isUploadKind(raw)) throw unknownKind();
  return raw;
}

interface ReceivedFile {
  path: string;
  filename: string | null;
  contentType: string | null;
}

/**
 * Streams the multipart body: the file goes to a scratch file while its bytes are counted
 * against the kind's limit (or the largest limit while the kind is still unknown), and the
 * request fails as soon as it is over, without reading the rest of the body.
 */
async function receiveUpload(
  app: App,
  request: Request,
  queryKind: UploadKind | null,
): Promise<{ kind: UploadKind; file: ReceivedFile }> {
  const boundary = multipartBoundary(request.headers.get("content-type"));
  if (!boundary || !request.body)
    throw fieldError("file", "is required: send multipart/form-data with a `file` part and a `kind` field");
  const declaredLength = Number(request.headers.get("content-length") ?? NaN);
  const limitOf = (kind: UploadKind | null) => (kind ? UPLOAD_KINDS[kind].maxBytes : MAX_UPLOAD_BYTES);
  // a truthful Content-Length over the limit is refused before a single byte is read
  if (Number.isFinite(declaredLength) && declaredLength > limitOf(queryKind) + FRAMING_SLACK) {
    throw fileTooLarge(queryKind ?? "any", limitOf(queryKind));
  }

  let kind = queryKind;
  let file: ReceivedFile | null = null;
  let current: {
    name: string;
    text?: Uint8Array[];
    textBytes: number;
    sink?: ReturnType<ReturnType<typeof Bun.file>["writer"]>;
    fileBytes: number;
  } | null = null;
  const scratch = join(scratchDir(app), `${randomToken(12)}.upload`);
  let consumed = 0;
  try {
    for await (const ev of readMultipart(request.body, boundary)) {
      if (ev.type === "part") {
        if (ev.name === "file" && ev.filename !== null) {
          if (file) throw fieldError("file", "must be sent once");
          const remaining = declaredLength - consumed;
          if (kind && Number.isFinite(remaining) && remaining > limitOf(kind) + FRAMING_SLACK)
            throw fileTooLarge(kind, limitOf(kind));
          file = { path: scratch, filename: ev.filename, contentType: ev.contentType };
          current = {
            name: "file",
            textBytes: 0,
            sink: Bun.file(scratch).writer({ highWaterMark: 1024 * 1024 }),
            fileBytes: 0,
          };
        } else {
          current = { name: ev.name, text: [], textBytes: 0, fileBytes: 0 };
        }
      } else if (ev.type === "data" && current) {
        consumed += ev.chunk.length;
        if (current.sink) {
          current.fileBytes += ev.chunk.length;
          if (current.fileBytes > limitOf(kind)) throw fileTooLarge(kind ?? "any", limitOf(kind));
          current.sink.write(ev.chunk);
        } else {
          current.textBytes += ev.chunk.length;
          if (current.textBytes > MAX_FIELD_BYTES) throw fieldError(current.name, "is too long");
          current.text!.push(ev.chunk.slice());
        }
      } else if (ev.type === "partEnd" && current) {
        if (current.sink) {
          await current.sink.end();
        } else if (current.name === "kind") {
          const value = Buffer.concat(current.text!).toString("utf8").trim();
          if (queryKind && value !== queryKind) throw fieldError("kind", "differs from the kind in the query string");
          kind = parseKind(value);
        }
        current = null;
      }
    }
  } catch (err) {
    if (current?.sink) await Promise.resolve(current.sink.end()).catch(() => undefined);
    rmSync(scratch, { force: true });
    if (err instanceof MultipartError) throw fieldError("file", `the multipart body is malformed: ${err.message}`);
    throw err;
  }
  if (!kind) {
    rmSync(scratch, { force: true });
    throw fieldError("kind", "is required");
  }
  if (!file) throw fieldError("file", "is required");
  if (Bun.file(file.path).size > limitOf(kind)) {
    rmSync(scratch, { force: true });
    throw fileTooLarge(kind, limitOf(kind));
  }
  return { kind, file };
}

/** POST /api/account/upload: multipart `file` + `kind` (also accepted as `?kind=`). */
export function uploadRoutes(app: App) {
  return new Elysia({ name: "client-uploads" }).use(requestContext(app)).post(
    "",
    async ({ request, user, query }) => {
      const queryKind = parseKind((query as Record<string, string | undefined>).kind);
      const { kind, file } = await receiveUpload(app, request, queryKind);
      try {
        const row = await storeUpload(app, {
          ownerId: user.id,
          kind,
          data: Bun.file(file.path),
          filename: file.filename ?? undefined,
          declaredMime: file.contentType ?? undefined,
        });
        return ok(serializeUpload(row));
      } finally {
        rmSync(file.path, { force: true });
      }
    },
    {
      auth: true,
      parse: "none",
      detail: doc(
        "Upload a file (multipart/form-data): answers the URL to use in posts, messages, stories and the profile",
        {
          data: Upload,
          description: `Size limits per kind: ${Object.entries(UPLOAD_KINDS)
            .map(([kind, k]) => `${kind} ${k.maxBytes / 1024 / 1024} MB`)
            .join(", ")}. A file over its limit is refused with 413 VALIDATION_ERROR.`,
          requestBody: {
            required: true,
            content: {
              "multipart/form-data": {
                schema: t.Object({
                  kind: t.Union(
                    Object.keys(UPLOAD_KINDS).map((k) => t.Literal(k)),
                    { description: "also accepted as ?kind=" },
                  ),
                  file: t.String({ format: "binary" }),
                }),
              },
            },
          },
        },
      ),
    },
  );
}
