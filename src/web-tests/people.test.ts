import { describe, expect } from "bun:test";
import type { Page } from "playwright-core";
import { expectAccessible } from "../testing/browser";
import { quickPerson } from "../testing/fixtures";
import { pngOf } from "../testing/media";
import { postAs } from "../testing/posts";
import { browserSuite } from "../testing/browser-suite";

// Profiles in the web app, clicked through in chromium against a real server.
const suite = browserSuite();
const { it } = suite;

describe("web app: profiles", () => {
  it("opens a profile from a mention, follows, mutes and blocks, and lists followers", async () => {
    const author = await quickPerson(suite.server, { displayName: "Mira Author" });
    await author.client.patch("/api/account/profile", { bio: "Writes about #engines" });
    const me = await suite.person();
    await postAs(me.client, `Say hello to @${author.user.username}`);
    await postAs(author.client, "A post on my own profile");
    await me.page.reload();
    await me.page
      .getByRole("link", { name: `@${author.user.username}` })
      .first()
      .click();
    await me.page.getByRole("heading", { level: 1, name: "Mira Author" }).waitFor();
    await me.page.getByText("Writes about").waitFor();
    await me.page.getByText("A post on my own profile").waitFor();
    await expectAccessible(me.page);

    await me.page.getByRole("button", { name: "Follow", exact: true }).click();
    await me.page.getByRole("button", { name: "Following", pressed: true }).waitFor();
    await me.page.getByRole("link", { name: /^1 follower$/ }).click();
    await me.page.getByRole("heading", { level: 1, name: `People following @${author.user.username}` }).waitFor();
    await me.page.getByRole("link", { name: me.user.display_name }).waitFor();
    await expectAccessible(me.page);
    await me.page.getByRole("link", { name: `Back to @${author.user.username}` }).click();

    // a private chat starts from the profile
    await me.page.getByRole("link", { name: "Message", exact: true }).click();
    await me.page.waitForURL(/\/dashboard\/messages\/[^/?]+$/);
    await me.page.getByRole("heading", { name: "Mira Author" }).waitFor();
    await me.page.getByLabel("Message", { exact: true }).fill("Hello from your profile");
    await me.page.getByRole("button", { name: "Send", exact: true }).click();
    await me.page.getByText("Hello from your profile").last().waitFor();
    const chats = await author.client.get("/api/social/messages");
    expect(chats.body.data.conversations[0].lastMessage.content).toBe("Hello from your profile");
    await me.page.goto(`/users/${author.user.username}`);
    await me.page.getByRole("heading", { level: 1, name: "Mira Author" }).waitFor();

    await me.page.getByRole("button", { name: "Mute" }).click();
    await me.page.getByRole("button", { name: "Muted", pressed: true }).waitFor();
    await me.page.getByRole("button", { name: "Block" }).click();
    const dialog = me.page.getByRole("dialog", { name: `Block @${author.user.username}?` });
    await dialog.getByRole("button", { name: "Block" }).click();
    await me.page.getByRole("button", { name: "Blocked", pressed: true }).waitFor();
    expect(await me.page.getByRole("button", { name: "Following" }).count()).toBe(0);
    expect(await me.page.getByRole("link", { name: "Message", exact: true }).count()).toBe(0);
    await me.context.close();
  });

  it("edits my own profile with a new name, bio, picture and cover", async () => {
    const me = await suite.person({ viewport: { width: 390, height: 844 }, colorScheme: "dark" });
    await me.page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Profile" }).click();
    await me.page.getByRole("link", { name: "Edit profile" }).click();
    await me.page.getByRole("heading", { level: 1, name: "Edit your profile" }).waitFor();
    await me.page.getByLabel("Display name").fill("Renamed Person");
    await me.page.getByLabel("Bio").fill("New bio with #tags");
    const png = Buffer.from(await pngOf(suite.server.app, 300, 100));
    await me.page
      .getByLabel("Choose a profile picture")
      .setInputFiles({ name: "me.png", mimeType: "image/png", buffer: png });
    await me.page.getByRole("button", { name: "Remove the profile picture" }).waitFor();
    await me.page
      .getByLabel("Choose a cover picture or video")
      .setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: png });
    await me.page.getByRole("img", { name: "Cover picture" }).waitFor();
    await expectAccessible(me.page);
    await me.page.getByRole("button", { name: "Save" }).click();
    await me.page.getByRole("heading", { level: 1, name: "Renamed Person" }).waitFor();
    await me.page.getByText("New bio with").waitFor();
    await me.page.getByRole("img", { name: "Cover picture" }).waitFor();
    const stored = await suite.server.app.db
      .selectFrom("users")
      .select(["display_name", "bio", "avatar_url", "cover_url"])
      .where("id", "=", me.user.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ display_name: "Renamed Person", bio: "New bio with #tags" });
    expect(stored.avatar_url).toContain("/files/");
    expect(stored.cover_url).toContain("/files/");
    await expectAccessible(me.page);
    await me.context.close();
  });
});
