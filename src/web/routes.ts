import type { Screen } from "./lib/screen";
import { authScreens } from "./screens/auth/routes";
import { feedScreens } from "./screens/feed/routes";
import { adminScreens } from "./screens/admin/routes";
import { notificationScreens } from "./screens/notifications/routes";
import { searchScreens } from "./screens/search/routes";
import { settingsScreens } from "./screens/settings/routes";
import { starScreens } from "./screens/stars/routes";
import { messagesScreens } from "./screens/messages/routes";
import { peopleScreens } from "./screens/people/routes";
import { storyScreens } from "./screens/stories/routes";
import { botScreens } from "./screens/bots/routes";
import { aboutScreens } from "./screens/about/routes";

/** Every screen of the app, feature by feature. Add a feature's list here. */
export const screens: Screen[] = [
  ...feedScreens,
  ...messagesScreens,
  ...botScreens,
  ...authScreens,
  ...adminScreens,
  ...notificationScreens,
  ...searchScreens,
  ...starScreens,
  ...settingsScreens,
  ...peopleScreens,
  ...storyScreens,
  ...aboutScreens,
];
