import { lazyScreen } from "../../lib/lazy-screen";
import { StarIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";

export const starScreens: Screen[] = [
  {
    path: "/stars",
    access: "signed-in",
    component: lazyScreen(() => import("./stars").then((m) => m.Stars)),
    nav: { label: "stars", order: 30, icon: StarIcon },
  },
  // a bot's invoice link (createInvoiceLink); signed out, the sign-in form comes first
  {
    path: "/pay/:slug",
    access: "signed-in",
    component: lazyScreen(() => import("./invoice-link").then((m) => m.InvoiceLink)),
  },
];
