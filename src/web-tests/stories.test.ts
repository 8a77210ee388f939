import { describe, expect } from "bun:test";
import { cookiesOf, newPerson, pageProblems, expectAccessible } from "../testing/browser";
import { storeUpload } from "../media/uploads";
import { quickPerson } from "../testing/fixtures";
import { pngOf, uploadFor } from "../testing/media";
import { browserSuite } from "../testing/browser-suite";

// Stories in the web app: the row of followed accounts, the viewer, posting one, its viewers.
const suite = browserSuite();
const it = suite.it;
/** A row link's accessible name when the person has stories I have not seen. */
const unseen = (name: string) => new RegExp(`^${name}\\W+new stories$`);

/** A followed account with stories of the given kinds and captions. */
async function storyteller(displayName: string, stories: Array<{ kind: "story" | "story-voice"; caption?: string }>) {
  const p = await quickPerson(suite.server, { displayName });
  for (const s of stories) {
    const mediaUrl = await uploadFor(suite.server.app, p.user.id, s.kind);
    expect((await p.client.post("/api/social/stories", { mediaUrl, caption: s.caption })).status).toBe(200);
  }
  return p;
}

describe("web app: stories", () => {
  it("shows followed accounts' stories, steps through them by key and by tap, marks them seen and moves to the next person", async () => {
    const me = await suite.person();
    const ann = await storyteller("Ann Story", [
      { kind: "story", caption: "first light" },
      { kind: "story", caption: "second light" },
    ]);
    const bob = await storyteller("Bob Voice", [{ kind: "story-voice", caption: "listen to this" }]);
    await me.client.post(`/api/social/users/${ann.user.username}/follow`);
    await me.client.post(`/api/social/users/${bob.user.username}/follow`);

    const { page } = me;
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Stories" }).click();
    const row = page.getByRole("region", { name: "From people you follow" });
    await row.getByRole("link", { name: unseen("Ann Story") }).waitFor();
    await row.getByRole("link", { name: unseen("Bob Voice") }).waitFor();
    await page.getByText("You have no story up right now.").waitFor();
    await expectAccessible(page);

    await row.getByRole("link", { name: unseen("Ann Story") }).click();
    await page.getByRole("img", { name: "Story by Ann Story: first light" }).waitFor();
    await page.getByText("Story 1 of 2").waitFor();
    await expectAccessible(page);
    await page.keyboard.press("ArrowRight");
    await page.getByRole("img", { name: "Story by Ann Story: second light" }).waitFor();
    await page.keyboard.press("ArrowLeft");
    await page.getByText("Story 1 of 2").waitFor();
    // a tap on the right side moves on, as on a phone
    await page.getByRole("button", { name: "Next story" }).click();
    await page.getByText("Story 2 of 2").waitFor();
    const seenBoth = async () =>
      (await me.client.get(`/api/social/users/${ann.user.username}/stories`)).body.data.stories.every(
        (s: { seen: boolean }) => s.seen,
      );
    for (let i = 0; i < 50 && !(await seenBoth()); i++) await Bun.sleep(100);
    expect(await seenBoth()).toBe(true);

    // past Ann's last story comes Bob's voice story
    await page.keyboard.press("ArrowRight");
    await page.waitForURL(`**/stories/${bob.user.username}`);
    await page.getByText("Voice story").waitFor();
    expect(await page.locator("audio").getAttribute("aria-label")).toBe("Story by Bob Voice: listen to this");
    await page.keyboard.press("Escape");
    await page.waitForURL("**/stories");
    await row.getByRole("link", { name: "Ann Story", exact: true }).waitFor();
    await row.getByRole("link", { name: "Bob Voice", exact: true }).waitFor();

    // a story posted while the row is on screen appears by itself
    const cat = await quickPerson(suite.server, { displayName: "Cat Live" });
    await me.client.post(`/api/social/users/${cat.user.username}/follow`);
    await cat.client.post("/api/social/stories", { mediaUrl: await uploadFor(suite.server.app, cat.user.id, "story") });
    await row.getByRole("link", { name: unseen("Cat Live") }).waitFor();
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });

  it("posts a story with upload progress and lists who saw it, on a phone in dark mode", async () => {
    const me = await suite.person({
      viewport: { width: 390, height: 844 },
      colorScheme: "dark",
      displayName: "Story Teller",
    });
    const { page } = me;
    await page.goto("/stories");
    const form = page.getByRole("form", { name: "New story" });
    await form.getByLabel("Photo, video or voice recording").setInputFiles({
      name: "day.png",
      mimeType: "image/png",
      buffer: Buffer.from(await pngOf(suite.server.app, 90, 160)),
    });
    // the chosen file is shown before it is shared, and the picker offers to change it
    await form.getByRole("figure").getByText("day.png").waitFor();
    await form.getByText("Choose another file").waitFor();
    await form.getByLabel("Caption (optional)").fill("my day");
    await form.getByText("194 characters left").waitFor();
    // the upload is held back a moment so its progress can be seen
    await page.route("**/api/account/upload", async (route) => {
      await Bun.sleep(400);
      await route.continue();
    });
    await form.getByRole("button", { name: "Share the story" }).click();
    await form.getByRole("progressbar", { name: "Uploading" }).waitFor();
    await form.getByText("Your story is up for the next 24 hours.").waitFor();
    expect(await form.getByRole("progressbar").count()).toBe(0);
    const mine = page.getByRole("region", { name: "Your stories" });
    await mine.getByRole("link", { name: /my day · .* · 0 views/ }).waitFor();
    await expectAccessible(page);

    // a file of a kind stories do not take is refused beside the field
    await form
      .getByLabel("Photo, video or voice recording")
      .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("just text") });
    await form.getByRole("button", { name: "Share the story" }).click();
    await form.locator("#story-file-error").waitFor();
    expect(await form.getByLabel("Photo, video or voice recording").getAttribute("aria-invalid")).toBe("true");

    const story = (await me.client.get(`/api/social/users/${me.user.username}/stories`)).body.data.stories[0];
    const fan = await quickPerson(suite.server, { displayName: "Curious Fan" });
    expect((await fan.client.post(`/api/social/stories/${story.id}/view`)).status).toBe(200);
    await page.reload();
    await mine.getByRole("link", { name: /my day · .* · 1 view$/ }).click();
    await page.getByRole("img", { name: "Story by Story Teller: my day" }).waitFor();
    await page.getByRole("button", { name: "Viewers (1)" }).click();
    const dialog = page.getByRole("dialog", { name: "Viewers" });
    await dialog.getByRole("link", { name: "Curious Fan" }).waitFor();
    await expectAccessible(page);
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "hidden" });

    await page.getByRole("button", { name: "Delete this story" }).click();
    await page
      .getByRole("dialog", { name: "Delete this story?" })
      .getByRole("button", { name: "Delete", exact: true })
      .click();
    await page.waitForURL("**/stories");
    await page.getByText("You have no story up right now.").waitFor();
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });

  it("on a 390x844 phone the viewer sits above the tab bar, every control in view without scrolling, the picture a display copy", async () => {
    const teller = await quickPerson(suite.server, { displayName: "Tall Teller" });
    const upload = await storeUpload(suite.server.app, {
      ownerId: teller.user.id,
      kind: "story",
      data: await pngOf(suite.server.app, 1080, 1920),
    });
    const caption = "A long caption about the day, ".repeat(6).trim();
    const posted = await teller.client.post("/api/social/stories", { mediaUrl: upload.url, caption });
    expect(posted.status).toBe(200);
    const story = posted.body.data.story;
    expect(story.width).toBe(1080);
    expect(story.renditions.map((r: { width: number }) => r.width)).toEqual([360, 720]);

    for (const who of ["reader", "author"] as const) {
      const me =
        who === "author"
          ? await newPerson(suite.browser, suite.server.url, { viewport: { width: 390, height: 844 } })
          : await suite.person({ viewport: { width: 390, height: 844 } });
      if (who === "author") await me.context.addCookies(cookiesOf(teller.client, suite.server.url));
      const { page } = me;
      suite.watch(page);
      await page.goto(`/stories/${teller.user.username}?story=${story.id}`);
      const img = page.getByRole("img", { name: `Story by Tall Teller: ${caption}` });
      await img.waitFor();
      await img.evaluate((el: HTMLImageElement) =>
        el.complete && el.naturalWidth > 0
          ? undefined
          : new Promise((r) => el.addEventListener("load", r, { once: true })),
      );
      const source = await img.evaluate((el: HTMLImageElement) => el.currentSrc);
      expect(story.renditions.map((r: { url: string }) => r.url)).toContain(source);
      expect(source).not.toBe(story.mediaUrl);

      const tabBar = await page.getByRole("navigation", { name: "Main" }).boundingBox();
      expect(tabBar!.y + tabBar!.height).toBeCloseTo(844, 0);
      const controls = [
        page.getByRole("link", { name: "Close" }),
        page.getByRole("button", { name: "Previous", exact: true }),
        page.getByRole("button", { name: "Next", exact: true }),
        page.getByRole("button", { name: "Next story" }),
        ...(who === "author"
          ? [page.getByRole("button", { name: /^Viewers \(/ }), page.getByRole("button", { name: "Delete this story" })]
          : [page.getByRole("button", { name: /^Report/ })]),
        img,
      ];
      for (const control of controls) {
        const box = (await control.boundingBox())!;
        expect(box.y).toBeGreaterThanOrEqual(0);
        // above the tab bar, in full
        expect(box.y + box.height).toBeLessThanOrEqual(tabBar!.y + 0.5);
        // and what a tap at its middle reaches is the control itself
        const reached = await control.evaluate(
          (el, at) => {
            const hit = document.elementFromPoint(at.x, at.y);
            return !!hit && (hit === el || el.contains(hit));
          },
          { x: box.x + box.width / 2, y: box.y + box.height / 2 },
        );
        expect(reached).toBe(true);
      }
      // the picture is shown whole, inside its stage
      const stage = (await page.locator(".story-stage").boundingBox())!;
      const picture = (await img.boundingBox())!;
      expect(picture.y).toBeGreaterThanOrEqual(stage.y - 0.5);
      expect(picture.y + picture.height).toBeLessThanOrEqual(stage.y + stage.height + 0.5);
      expect(await img.evaluate((el) => getComputedStyle(el).objectFit)).toBe("contain");
      // nothing to scroll: not the page, not the viewer
      expect(await page.evaluate(() => document.scrollingElement!.scrollHeight <= window.innerHeight)).toBe(true);
      const viewer = page.locator(".story-viewer");
      expect(await viewer.evaluate((el) => el.scrollHeight <= el.clientHeight)).toBe(true);
      await expectAccessible(page);
      expect(pageProblems(page)).toEqual([]);
      await me.context.close();
    }
  });
});
