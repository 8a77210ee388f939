import { describe, expect, test } from "bun:test";
import { groupReactions } from "./reactions";

describe("groupReactions", () => {
  test("most people first, then by emoji, users in the order they reacted", () => {
    const rows = [
      { emoji: "👍", userId: "u1" },
      { emoji: "❤️", userId: "u2" },
      { emoji: "🔥", userId: "u3" },
      { emoji: "🔥", userId: "u4" },
    ];
    expect(groupReactions(rows)).toEqual([
      { emoji: "🔥", count: 2, userIds: ["u3", "u4"] },
      { emoji: "❤️", count: 1, userIds: ["u2"] },
      { emoji: "👍", count: 1, userIds: ["u1"] },
    ]);
    // the same rows in another order give the same groups (timing never decides)
    expect(groupReactions([...rows].reverse()).map((g) => g.emoji)).toEqual(["🔥", "❤️", "👍"]);
  });

  test("no rows, no groups", () => {
    expect(groupReactions([])).toEqual([]);
  });
});
