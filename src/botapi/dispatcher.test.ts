import { expect, test } from "bun:test";
import { BOT_METHODS } from "./dispatcher";
import { callbackMethods } from "./methods/callbacks";
import { chatMethods } from "./methods/chats";
import { editMethods } from "./methods/edit";
import { paymentMethods } from "./methods/payments";
import { profileMethods } from "./methods/profile";
import { sendMethods } from "./methods/send";
import { updatesMethods } from "./methods/updates";
import { fileMethods } from "./methods/files";
import { liveLocationMethods } from "./methods/locations";
import { unsupportedMethods } from "./methods/unsupported";

test("the method table lists every handler of every methods/ file, under its own name", () => {
  const families = [
    profileMethods,
    updatesMethods,
    sendMethods,
    editMethods,
    callbackMethods,
    chatMethods,
    paymentMethods,
    fileMethods,
    liveLocationMethods,
    unsupportedMethods,
  ];
  const handlers = families.flatMap((family) => Object.entries(family));
  expect(Object.keys(BOT_METHODS).sort()).toEqual(handlers.map(([name]) => name).sort());
  for (const [name, fn] of handlers) expect(BOT_METHODS[name as keyof typeof BOT_METHODS]).toBe(fn);
});
