import type { TestClient } from "./client";

/** Cookie and CSRF headers of a signed-in TestClient, for raw fetch and socket requests. */
export function authHeaders(client: TestClient): Record<string, string> {
  return {
    cookie: client.cookieHeader(),
    "x-csrf-token": client.csrf ?? "",
  };
}

/** POSTs multipart `kind` + `file` to /api/account/upload (kind first unless KIND_LAST). */
export async function postUpload(
  client: TestClient,
  kind: string | null,
  data: Uint8Array,
  opts: { filename?: string; type?: string; kindLast?: boolean } = {},
) {
  const form = new FormData();
  if (kind !== null && !opts.kindLast) form.append("kind", kind);
  form.append(
    "file",
    new Blob([data as Uint8Array<ArrayBuffer>], { type: opts.type ?? "application/octet-stream" }),
    opts.filename ?? "upload.bin",
  );
  if (kind !== null && opts.kindLast) form.append("kind", kind);
  return client.post("/api/account/upload", form);
}
