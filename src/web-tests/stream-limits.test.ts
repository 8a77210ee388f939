import { describe, expect } from "bun:test";
import { realtimeHub } from "../realtime/hub";
import { STREAM_LIMIT_CLOSE_CODE } from "../realtime/events";
import { pageProblems, expectAccessible } from "../testing/browser";
import { browserSuite } from "../testing/browser-suite";
import { WsClient } from "../testing/realtime";
import { waitFor } from "../testing/wait";

// One stream per session: a window whose stream is closed for a newer one says so and waits
// until it is used again, rather than taking the stream back at once (two windows would take turns).
const suite = browserSuite({ "limits.streamsPerSession": 1 });
const { it } = suite;

describe("web app: too many live streams", () => {
  it("a window whose stream was closed for a newer one shows it is paused, and takes a stream again when used", async () => {
    const { page, context, client } = await suite.person();
    await page.getByRole("heading", { level: 1, name: "Feed" }).waitFor();
    const hub = realtimeHub(suite.server.app);
    const streamsOf = () => hub.connectionCount();
    await waitFor(() => streamsOf() >= 1, 10_000, "the page's stream");

    // another window of the same session (a program with the same cookies) opens a stream
    const other = await WsClient.open(suite.server.url, client);
    const paused = page.getByRole("status").filter({ hasText: "Live updates are paused in this window" });
    await paused.waitFor();
    await expectAccessible(page);
    // paused means paused: no reconnect that would close the other window's stream
    await Bun.sleep(1500);
    expect(other.closeCode).toBeNull();

    // using the window takes a stream again; now the other one is the oldest
    await page.getByRole("heading", { level: 1, name: "Feed" }).click();
    await paused.waitFor({ state: "hidden" });
    expect(await other.waitClosed(10_000)).toBe(STREAM_LIMIT_CLOSE_CODE);
    expect(pageProblems(page)).toEqual([]);
    await context.close();
  });
});
