import { formatCount } from "../lib/format";

/**
 * A count beside a header link ("Notifications 3"). Screen readers hear the link as
 * "Notifications, 3 unread": the separator and the noun are visually hidden.
 */
export function CountBadge({ count, noun }: { count: number; noun: string }) {
  if (count <= 0) return null;
  return (
    <span class="unread-badge">
      <span class="visually-hidden">, </span>
      {formatCount(count)}
      <span class="visually-hidden"> {noun}</span>
    </span>
  );
}
