/**
 * Where a link a bot gave (a url button, a callback answer's url) or a message's text carries
 * leads, seen from the app at ORIGIN: another site, a page of this one, or a sign-in page,
 * which such a link never opens (an attacker's bot could land a person on the approval of a
 * sign-in the attacker started).
 */
export type BotLinkTarget =
  { kind: "external"; href: string } | { kind: "internal"; href: string } | { kind: "refused"; href: string };

export function botLinkTarget(url: string, origin: string): BotLinkTarget {
  let target: URL;
  try {
    target = new URL(url, origin);
  } catch {
    return { kind: "refused", href: url };
  }
  if (target.origin !== origin) return { kind: "external", href: target.href };
  let path = target.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // a broken escape leads nowhere the app routes
  }
  // the forms the app or the server may take for the same page: any case, doubled or trailing slashes
  const normalized = path
    .toLowerCase()
    .replace(/\/{2,}/g, "/")
    .replace(/\/+$/, "");
  if (normalized === "/auth" || normalized.startsWith("/auth/")) return { kind: "refused", href: target.href };
  return { kind: "internal", href: target.href };
}
