import { language } from "./i18n";

/** Dates and numbers in the app's language, through Intl (formatters made once per language). */
function formatters(code: string) {
  return {
    dateTime: new Intl.DateTimeFormat(code, { dateStyle: "medium", timeStyle: "short" }),
    dateOnly: new Intl.DateTimeFormat(code, { dateStyle: "long" }),
    timeOnly: new Intl.DateTimeFormat(code, { timeStyle: "medium" }),
    day: new Intl.DateTimeFormat(code, { dateStyle: "full" }),
    shortDay: new Intl.DateTimeFormat(code, { month: "short", day: "numeric" }),
    time: new Intl.DateTimeFormat(code, { timeStyle: "short" }),
    relative: new Intl.RelativeTimeFormat(code, { numeric: "auto" }),
    compact: new Intl.NumberFormat(code, { notation: "compact", maximumFractionDigits: 1 }),
    plain: new Intl.NumberFormat(code),
    percent: new Intl.NumberFormat(code, { style: "percent" }),
    signed: new Intl.NumberFormat(code, { signDisplay: "exceptZero" }),
    tenths: new Intl.NumberFormat(code, { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
  };
}
const made = new Map<string, ReturnType<typeof formatters>>();
function fmt() {
  const code = language.value;
  let found = made.get(code);
  if (!found) made.set(code, (found = formatters(code)));
  return found;
}

export const formatDateTime = (iso: string) => fmt().dateTime.format(new Date(iso));
export const formatDate = (iso: string) => fmt().dateOnly.format(new Date(iso));
/** "14:05:09", to the second (a log line). */
export const formatTimeWithSeconds = (iso: string) => fmt().timeOnly.format(new Date(iso));
/** "Sunday, 29 November 2026": a chat's day separator. */
export const formatDay = (iso: string) => fmt().day.format(new Date(iso));
/** "29 Nov": a chat list row's day. */
export const formatShortDay = (iso: string) => fmt().shortDay.format(new Date(iso));
export const formatTime = (iso: string) => fmt().time.format(new Date(iso));
/** 2.25 → "2.3" (one decimal, always shown) */
export const formatTenths = (n: number) => fmt().tenths.format(n);
export const formatNumber = (n: number) => fmt().plain.format(n);
/** 0.25 → "25%" ("25 %" in Russian). */
export const formatPercent = (share: number) => fmt().percent.format(share);
/** 5 → "+5", -5 → "-5" (a movement of a balance). */
export const formatSigned = (n: number) => fmt().signed.format(n);
export const formatCount = (n: number) => (n < 10_000 ? fmt().plain.format(n) : fmt().compact.format(n));

const UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

/** 1536 → "1.5 kB", in the app's language. */
export function formatBytes(n: number): string {
  let i = 0;
  while (n >= 1024 && i < UNITS.length - 1) ((n /= 1024), i++);
  return new Intl.NumberFormat(language.value, {
    style: "unit",
    unit: UNITS[i],
    unitDisplay: "short",
    maximumFractionDigits: 1,
  }).format(n);
}

/** 3, "hour" → "3 hours", in the app's language. */
export const formatUnit = (value: number, unit: "day" | "hour" | "minute" | "second") =>
  new Intl.NumberFormat(language.value, { style: "unit", unit, unitDisplay: "long" }).format(value);

/** A wait in whole seconds, or minutes from one minute on: "1 second", "3 minutes". */
export const formatWait = (seconds: number): string =>
  seconds < 60 ? formatUnit(seconds, "second") : formatUnit(Math.ceil(seconds / 60), "minute");

const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 7],
];

/** "5 minutes ago", "yesterday"; older than a week: the date. */
export function formatRelative(iso: string, now = Date.now()): string {
  let value = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of STEPS) {
    if (Math.abs(value) < size) return fmt().relative.format(Math.round(value), unit);
    value /= size;
  }
  return fmt().dateTime.format(new Date(iso));
}
