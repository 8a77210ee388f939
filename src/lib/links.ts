/** The longest link a preview is made for. */
export const MAX_LINK_LENGTH = 2048;

// a link as people type it: up to whitespace or a character that never ends one
const LINK = /\bhttps?:\/\/[^\s<>"'`]+/i;

/**
 * The first http(s) link of TEXT, without the punctuation a sentence puts after it (a closing
 * bracket only when the link opens none), normalized as URL writes it; or null. The server
 * previews this link, and the app's composers show the same one before sending.
 */
export function firstLink(text: string): string | null {
  if (!text.includes("://")) return null;
  const found = LINK.exec(text);
  if (!found) return null;
  let link = found[0].replace(/[.,;:!?*]+$/, "");
  while (/[)\]}]$/.test(link) && !/[([{]/.test(link)) link = link.slice(0, -1).replace(/[.,;:!?*]+$/, "");
  if (link.length > MAX_LINK_LENGTH) return null;
  try {
    const url = new URL(link);
    return url.hostname ? url.toString() : null;
  } catch {
    return null;
  }
}
