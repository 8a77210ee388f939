import type { App } from "../app";
import { inTransaction } from "../db/transaction";
import { requireMembership } from "../domain/chats/access";
import { storeMessage, type SendMessageInput } from "../domain/chats/messages";
import type { UserRow } from "../domain/users/table";
import type { TestClient } from "./client";

type Member = { user: Pick<UserRow, "id" | "username">; client: TestClient };

/**
 * A group CREATOR makes through the Client API with MEMBERS, then MESSAGES (who sends what)
 * stored in one commit, so the push plan the first one queues is still waiting when the others
 * ask for theirs. Returns the group's public id.
 */
export async function groupWithBurst(
  server: { app: App },
  creator: Member,
  title: string,
  members: Member[],
  messages: Array<[sender: Member, input: Omit<SendMessageInput, "conversationId" | "senderId">]>,
): Promise<string> {
  const made = await creator.client.post("/api/social/groups", { title, members: members.map((m) => m.user.username) });
  if (made.status !== 200) throw new Error(`group not made: ${JSON.stringify(made.body)}`);
  const cuid = made.body.data.conversationId as string;
  const group = await server.app.db
    .selectFrom("conversations")
    .select("id")
    .where("cuid", "=", cuid)
    .executeTakeFirstOrThrow();
  await inTransaction(server.app.storage, async (scope) => {
    for (const [sender, input] of messages) {
      const membership = await requireMembership(scope.db, group.id, sender.user.id);
      await storeMessage(scope, server.app, membership, input);
    }
  });
  return cuid;
}

/** A chat message's poll as a bot sends one (stored in the message's extra): one answer of two, anonymous, open. */
export const TEA_POLL = {
  id: "tea",
  question: "Tea?",
  options: [{ text: "Green" }, { text: "Black" }],
  is_closed: false,
  is_anonymous: true,
  type: "regular",
  allows_multiple_answers: false,
};
