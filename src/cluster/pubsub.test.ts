import { expect, test } from "bun:test";
import type { Logger } from "../lib/log";
import { LocalPubSub } from "./pubsub";

test("in one process a publish reaches the topic's listeners at once, and a failing listener stops neither the others nor the publisher", async () => {
  const logged: string[] = [];
  const log: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (msg, fields) => void logged.push(`${msg}: ${String(fields?.error)}`),
  };
  const bus = new LocalPubSub(log);
  const got: string[] = [];
  bus.subscribe("t", () => {
    throw new Error("boom");
  });
  const off = bus.subscribe("t", (m) => got.push(m));
  bus.subscribe("other", (m) => got.push(`other ${m}`));
  const published = bus.publish("t", "one");
  // synchronous, as the direct call it replaces: delivered before publish returns
  expect(got).toEqual(["one"]);
  await published;
  expect(logged).toEqual(["pub/sub listener failed: boom"]);
  off();
  await bus.publish("t", "two");
  expect(got).toEqual(["one"]);
  expect(await bus.problem()).toBeNull();
});
