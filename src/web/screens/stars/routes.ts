import { lazy } from "preact-iso";
import { StarIcon } from "../../components/icon";
import type { Screen } from "../../lib/screen";

export const starScreens: Screen[] = [
  {
    path: "/stars",
    access: "signed-in",
    component: lazy(() => import("./stars").then((m) => m.Stars)),
    nav: { label: "stars", order: 30, icon: StarIcon },
  },
  // a bot's invoice link (createInvoiceLink); signed out, the sign-in form comes first
  {
    path: "/pay/:slug",
    access: "signed-in",
    component: lazy(() => import("./invoice-link").then((m) => m.InvoiceLink)),
  },
];
