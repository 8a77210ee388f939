import { expect, test } from "bun:test";
import { TurnBatch } from "./turn-batch";

/** A batch runner whose batches end only when the test says so. */
function gatedRunner() {
  const batches: number[][] = [];
  const gates: Array<() => void> = [];
  const run = (items: number[]) => {
    batches.push(items);
    return new Promise<void>((resolve) => gates.push(resolve));
  };
  return { batches, gates, run };
}

/** A batch whose runner only records the batches it gets. */
function recordingBatch(opts: { max: number; oneAtATime: boolean }) {
  const ran: number[][] = [];
  const batch = new TurnBatch<number>(async (items) => void ran.push(items), { ...opts, onFailure: () => {} });
  return { ran, batch };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test("what is added in one turn is one batch, at most MAX items each", async () => {
  const { ran, batch } = recordingBatch({ max: 3, oneAtATime: false });
  for (let i = 0; i < 7; i++) batch.add(i);
  expect(ran).toEqual([]);
  await turn();
  expect(ran).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
});

test("one at a time: what comes while a batch runs forms the next, started once it has finished", async () => {
  const { batches, gates, run } = gatedRunner();
  const batch = new TurnBatch<number>(run, { max: 64, oneAtATime: true, onFailure: () => {} });
  batch.add(1);
  await turn();
  batch.add(2);
  batch.add(3);
  await turn();
  expect(batches).toEqual([[1]]);
  gates[0]!();
  await turn();
  await turn();
  expect(batches).toEqual([[1], [2, 3]]);
  gates[1]!();
});

test("a batch that throws hands its items to onFailure, and the next batch still runs", async () => {
  const failed: number[][] = [];
  const ran: number[][] = [];
  const batch = new TurnBatch<number>(
    async (items) => {
      ran.push(items);
      if (items.includes(1)) throw new Error("no");
    },
    { max: 64, oneAtATime: true, onFailure: (_error, items) => void failed.push(items) },
  );
  batch.add(1);
  await batch.drain();
  batch.add(2);
  await batch.drain();
  expect(ran).toEqual([[1], [2]]);
  expect(failed).toEqual([[1]]);
});

test("hold waits for the running batch, starts none until released, then what waited runs", async () => {
  const { batches, gates, run } = gatedRunner();
  const batch = new TurnBatch<number>(run, { max: 64, oneAtATime: true, onFailure: () => {} });
  batch.add(1);
  await turn();
  let held = false;
  const holding = batch.hold(10_000).then((release) => ((held = true), release));
  await turn();
  expect(held).toBe(false);
  gates[0]!();
  const release = await holding;
  batch.add(2);
  await turn();
  await turn();
  expect(batches).toEqual([[1]]);
  release();
  await turn();
  await turn();
  expect(batches).toEqual([[1], [2]]);
  gates[1]!();
});

test("a hold runs out after its time; drain runs what waits even under a hold", async () => {
  const { ran, batch } = recordingBatch({ max: 64, oneAtATime: true });
  await batch.hold(20);
  batch.add(1);
  await turn();
  expect(ran).toEqual([]);
  await Bun.sleep(40);
  await turn();
  expect(ran).toEqual([[1]]);

  const release = await batch.hold(10_000);
  batch.add(2);
  batch.add(3);
  await batch.drain();
  expect(ran).toEqual([[1], [2, 3]]);
  release();
});
