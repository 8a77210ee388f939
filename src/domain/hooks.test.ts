import { expect, test } from "bun:test";
import { DomainHooks, type DomainTxHookPayloads } from "./hooks";
import type { Logger } from "../lib/log";
import type { Scope } from "../db/transaction";

/*
 * Hooks whose listeners all finish at once answer without a promise (every message sent emits
 * three); with any listener that returns one, the listeners after it still start only once it
 * has settled, in registration order, and failures keep their rules (logged after commit,
 * propagated within a transaction).
 */

const recordingLog = () => {
  const errors: Array<Record<string, unknown>> = [];
  const log: Logger = { debug() {}, info() {}, warn() {}, error: (_msg, fields) => void errors.push(fields ?? {}) };
  return { log, errors };
};
const payload = { conversationId: 1, messageId: 2, senderId: 3 };
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

test("emit: no listener or listeners that finish at once give no promise; the others run in order, each after the one before", async () => {
  const { log } = recordingLog();
  const hooks = new DomainHooks(log);
  expect(hooks.emit("message:created", payload)).toBeUndefined();
  const order: string[] = [];
  hooks.on("message:created", () => void order.push("first, at once"));
  hooks.on("message:created", () => void order.push("second, at once"));
  expect(hooks.emit("message:created", payload)).toBeUndefined();
  expect(order).toEqual(["first, at once", "second, at once"]);

  order.length = 0;
  hooks.on("message:created", async () => {
    await tick();
    order.push("third, later");
  });
  hooks.on("message:created", () => void order.push("fourth, after the third"));
  const pending = hooks.emit("message:created", payload);
  expect(pending).toBeInstanceOf(Promise);
  expect(order).toEqual(["first, at once", "second, at once"]);
  await pending;
  expect(order).toEqual(["first, at once", "second, at once", "third, later", "fourth, after the third"]);
});

test("emit: a failing listener, at once or later, is logged and the others still run", async () => {
  const { log, errors } = recordingLog();
  const hooks = new DomainHooks(log);
  const ran: string[] = [];
  hooks.on("message:created", () => {
    throw new Error("at once");
  });
  hooks.on("message:created", () => void ran.push("after the throw"));
  hooks.on("message:created", async () => {
    await tick();
    throw new Error("later");
  });
  hooks.on("message:created", () => void ran.push("after the rejection"));
  await hooks.emit("message:created", payload);
  expect(ran).toEqual(["after the throw", "after the rejection"]);
  expect(errors.map((e) => [e.hook, String(e.error).split("\n")[0]])).toEqual([
    ["message:created", "Error: at once"],
    ["message:created", "Error: later"],
  ]);
});

test("emitWithin: in order, each after the one before; a failure, at once or later, reaches the emitter", async () => {
  const hooks = new DomainHooks(recordingLog().log);
  const scope = { db: undefined, afterCommit() {} } as unknown as Scope;
  const storing = { conversation: {}, message: {}, members: [] } as never;
  expect(hooks.emitWithin(scope, "message:storing", storing)).toBeUndefined();
  const order: string[] = [];
  hooks.within("message:storing", () => void order.push("at once"));
  expect(hooks.emitWithin(scope, "message:storing", storing)).toBeUndefined();
  hooks.within("message:storing", async () => {
    await tick();
    order.push("later");
  });
  hooks.within("message:storing", () => void order.push("after it"));
  order.length = 0;
  await hooks.emitWithin(scope, "message:storing", storing);
  expect(order).toEqual(["at once", "later", "after it"]);

  const failing = new DomainHooks(recordingLog().log);
  failing.within("message:storing", () => {
    throw new Error("refused at once");
  });
  expect(() => failing.emitWithin(scope, "message:storing", storing)).toThrow("refused at once");
  const later = new DomainHooks(recordingLog().log);
  later.within("message:storing", async () => {
    await tick();
    throw new Error("refused later");
  });
  let ranAfter = false;
  later.within("message:storing", () => void (ranAfter = true));
  await expect(later.emitWithin(scope, "message:storing", storing)!).rejects.toThrow("refused later");
  expect(ranAfter).toBe(false);
});

test("mayWriteWithin: a listener may write unless its predicate says it has nothing to write for the payload", () => {
  const { log } = recordingLog();
  const hooks = new DomainHooks(log);
  const storing = {
    conversation: { id: 1 },
    message: { id: 2, sender_id: 3 },
    members: [{ user_id: 3, is_bot: 0 }],
  } as unknown as DomainTxHookPayloads["message:storing"];
  // nobody listens: nothing to write
  expect(hooks.mayWriteWithin("message:storing", storing)).toBe(false);
  let reaches = false;
  hooks.within(
    "message:storing",
    () => undefined,
    () => reaches,
  );
  expect(hooks.mayWriteWithin("message:storing", storing)).toBe(false);
  reaches = true;
  expect(hooks.mayWriteWithin("message:storing", storing)).toBe(true);
  reaches = false;
  // a listener registered without a predicate may write for any payload
  hooks.within("message:storing", () => undefined);
  expect(hooks.mayWriteWithin("message:storing", storing)).toBe(true);
});
