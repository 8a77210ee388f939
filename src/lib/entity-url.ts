/**
 * The one link rule for every URL an entity carries (text_link), from every surface (the Bot
 * API's sends, edits and captions, its markup parsers, the Client API's sends and edits), after
 * the compatible API: http(s) links are normalized (scheme added to a bare domain, scheme and
 * host lower-cased, "/" as the empty path, spaces percent-encoded), tg:// and ton:// links are
 * kept, anything else (javascript:, data:, vbscript:, file:, ftp:...) is refused, and so is a
 * link with surrounding whitespace or control characters.
 */
export type LinkCheck = { ok: true; url: string } | { ok: false; reason: string };

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const TG_LINK = /^(tg|ton):(?:\/\/)?([a-z0-9_-]+)(\/?(?:[?#].*)?)$/is;
const HTTP_LINK = /^(?:(https?):\/\/)?((?:[^@/?#\s]*@)?)([^:/?#@\s]+)((?::\d{1,5})?)([/?#].*)?$/is;
const HOST_LABEL = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}_-]*[\p{L}\p{N}])?)$/u;

/** LINK normalized, or why it is refused (the compatible API's reason). */
export function checkLink(link: string): LinkCheck {
  if (link === "" || link !== link.trim() || /[\u0000-\u001f\u007f]/.test(link))
    return { ok: false, reason: "Wrong HTTP URL" };
  const scheme = SCHEME.exec(link)?.[1]?.toLowerCase();
  if (scheme === "tg" || scheme === "ton") {
    const match = TG_LINK.exec(link);
    if (!match) return { ok: false, reason: `Wrong ${scheme} URL` };
    return { ok: true, url: `${scheme}://${match[2]!.toLowerCase()}${match[3]}` };
  }
  // "host:port/..." has no scheme, it is a bare domain with a port.
  if (scheme !== undefined && scheme !== "http" && scheme !== "https" && !/^[^:]+:\d/.test(link)) {
    return { ok: false, reason: "Unsupported URL protocol" };
  }
  const match = HTTP_LINK.exec(link);
  if (!match) return { ok: false, reason: "Wrong HTTP URL" };
  const [, linkScheme = "http", userInfo, host, port, rest = "/"] = match;
  const labels = host!.toLowerCase().split(".");
  const isIp = labels.length === 4 && labels.every((label) => /^\d{1,3}$/.test(label) && Number(label) < 256);
  if (
    !isIp &&
    (labels.length < 2 || !labels.every((label) => HOST_LABEL.test(label)) || /^\d+$/.test(labels.at(-1)!))
  ) {
    return { ok: false, reason: "Wrong HTTP URL" };
  }
  const tail = (rest.startsWith("/") ? rest : `/${rest}`).replace(/\s/g, (space) => encodeURIComponent(space));
  return { ok: true, url: `${linkScheme.toLowerCase()}://${userInfo}${labels.join(".")}${port}${tail}` };
}
