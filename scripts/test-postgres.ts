/**
 * The storage-dependent tests again, on PostgreSQL: SOCIAL_TEST_DATABASE=postgres makes every
 * test server (src/testing/server.ts) open a fresh database on a throwaway cluster
 * (src/testing/postgres.ts). A chosen set, not the whole suite, so `npm test` stays well
 * within CI's time: the domain's transactions and concurrency, the Client API's features
 * and the Bot API through real bot libraries. Extra arguments replace the set.
 */
const FILES = [
  "src/clientapi/search/search.test.ts",
  "src/clientapi/posts/posts.test.ts",
  "src/clientapi/posts/feed.test.ts",
  "src/clientapi/posts/comments.test.ts",
  "src/clientapi/people/people.test.ts",
  "src/clientapi/chats/chats.test.ts",
  "src/clientapi/chats/groups.test.ts",
  "src/clientapi/auth/login.test.ts",
  "src/clientapi/auth/register.test.ts",
  "src/clientapi/notifications/notifications.test.ts",
  "src/clientapi/stars/stars.test.ts",
  "src/clientapi/payments/payments.test.ts",
  "src/domain/chats/send-atomic.test.ts",
  "src/domain/payments/pay-atomic.test.ts",
  "src/domain/stars/concurrent-gifts.test.ts",
  "src/botapi/grammy.test.ts",
  "src/botapi/telegraf.test.ts",
  "src/ops/to-s3.test.ts",
];

export {};

const files = process.argv.length > 2 ? process.argv.slice(2) : FILES;
const proc = Bun.spawn(["bun", "test", "--timeout", "30000", ...files], {
  env: { ...process.env, SOCIAL_TEST_DATABASE: "postgres" },
  stdio: ["inherit", "inherit", "inherit"],
});
process.exit(await proc.exited);
