export interface ReactionGroup {
  emoji: string;
  count: number;
  userIds: string[];
}

/**
 * Groups reaction rows (already ordered by when each was set) by emoji. The groups' order is
 * defined by content, not by timing: most people first, then by emoji code points, so two
 * reactions set in the same millisecond never swap places between reads.
 */
export function groupReactions(rows: Iterable<{ emoji: string; userId: string }>): ReactionGroup[] {
  const byEmoji = new Map<string, string[]>();
  for (const r of rows) {
    const users = byEmoji.get(r.emoji);
    if (users) users.push(r.userId);
    else byEmoji.set(r.emoji, [r.userId]);
  }
  return [...byEmoji]
    .map(([emoji, userIds]) => ({ emoji, count: userIds.length, userIds }))
    .sort((a, b) => b.count - a.count || (a.emoji < b.emoji ? -1 : a.emoji > b.emoji ? 1 : 0));
}
