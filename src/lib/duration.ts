/**
 * Parses a config duration into whole seconds: "0" (off), plain seconds ("3600"), or a
 * number with a unit: "90s", "30m", "6h", "1d". Throws a message naming the accepted forms.
 */
export function parseDurationSeconds(raw: string): number {
  const m = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(raw);
  if (!m) throw new Error('must be 0 (off), seconds, or a number with s, m, h or d (e.g. "6h")');
  const unit = { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2]!.toLowerCase() as "" | "s" | "m" | "h" | "d"];
  const seconds = Number(m[1]) * unit;
  if (!Number.isSafeInteger(seconds) || seconds > 366 * 86400) throw new Error("must be at most 366 days");
  return seconds;
}
