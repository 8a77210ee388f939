import { describe, expect } from "bun:test";
import { grantStars } from "../domain/stars/service";
import { pageProblems, expectAccessible } from "../testing/browser";
import { quickPerson } from "../testing/fixtures";
import { browserSuite } from "../testing/browser-suite";

// Stars in the web app: the balance follows stars:balance live; the history pages by cursor.
const suite = browserSuite();
const it = suite.it;

describe("web app: stars", () => {
  it("shows the balance live, gives stars with errors beside the fields, and pages through the history", async () => {
    const me = await suite.person();
    const { page } = me;
    await page.goto("/");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Stars" }).click();
    await page.getByRole("heading", { level: 1, name: "Stars" }).waitFor();
    const balance = page.getByRole("group", { name: "Your balance" });
    await balance.getByText("0 stars").waitFor();
    await page.getByText("No stars have moved yet.").waitFor();
    await expectAccessible(page);

    // an administrator's grant and a friend's gift arrive while the page is open
    await grantStars(suite.server.app, me.user.id, 1500, "welcome");
    await balance.getByText("1,500 stars").waitFor();
    const history = page.getByRole("list", { name: "History" });
    await history.getByText("Granted by the instance").waitFor();
    await history.getByText("+1,500 stars").waitFor();
    const friend = await quickPerson(suite.server, { displayName: "Generous Friend" });
    await grantStars(suite.server.app, friend.user.id, 100);
    expect(
      (await friend.client.post("/api/stars/gift", { username: me.user.username, amount: 40, note: "for the coffee" }))
        .status,
    ).toBe(200);
    await balance.getByText("1,540 stars").waitFor();
    await history.getByRole("link", { name: "Generous Friend" }).waitFor();
    await history.getByText("Gift from Generous Friend").waitFor();
    await history.getByText("“for the coffee”").waitFor();
    await expectAccessible(page);

    const gift = page.getByRole("form", { name: "Give stars" });
    await gift.getByLabel("To (username)").fill("nobody_has_this_name");
    await gift.getByLabel("Amount").fill("15");
    await gift.getByRole("button", { name: "Give" }).click();
    await gift.getByText("Nobody has this username.").waitFor();
    await gift.getByLabel("To (username)").fill(`@${friend.user.username}`);
    await gift.getByLabel("Amount").fill("999999");
    await gift.getByRole("button", { name: "Give" }).click();
    await gift.getByText("Your balance is too low for this amount.").waitFor();
    expect(await gift.getByLabel("Amount").getAttribute("aria-invalid")).toBe("true");
    await gift.getByLabel("Amount").fill("15");
    await gift.getByRole("button", { name: "Give" }).click();
    await gift.getByText(`You gave 15 stars to @${friend.user.username}.`).waitFor();
    await history.getByText("Gift to Generous Friend").waitFor();
    await history.getByText("-15 stars").waitFor();
    await balance.getByText("1,525 stars").waitFor();

    // more lines than one page: the rest load at the end of the list
    for (let i = 0; i < 21; i++) await grantStars(suite.server.app, me.user.id, 1);
    await page.reload();
    await balance.getByText("1,546 stars").waitFor();
    await history.getByRole("listitem").first().waitFor();
    await page.keyboard.press("End");
    await history.getByText("+1,500 stars").waitFor();
    expect(await history.getByRole("listitem").count()).toBe(24);
    expect(pageProblems(page)).toEqual([]);
    await me.context.close();
  });
});
