/**
 * The path of REQUEST's URL, without query or fragment: what `new URL(url).pathname` gives for
 * the URLs Bun.serve hands us (already normalised: dot segments resolved, non-ASCII
 * percent-encoded), found by two indexOf calls instead of parsing a URL object. Every request
 * asks for it several times (the request log, the guards, the Bot API's dispatch), so it
 * is part of every request's cost.
 */
export function requestPath(request: Request): string {
  const url = request.url;
  const scheme = url.indexOf("://");
  const start = scheme < 0 ? -1 : url.indexOf("/", scheme + 3);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}
