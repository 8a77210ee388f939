import { lazyScreen } from "../../lib/lazy-screen";
import type { Screen } from "../../lib/screen";

const Register = lazyScreen(() => import("./register").then((m) => m.Register));

/** Sign-in side: the paths mails and QR codes link to are contracts (product spec, "The web app"). */
export const authScreens: Screen[] = [
  { path: "/auth/register", access: "signed-out", component: Register },
  // invite links: /register?invite=<code>
  { path: "/register", access: "signed-out", component: Register },
  {
    path: "/auth/forgot-password",
    access: "signed-out",
    component: lazyScreen(() => import("./forgot-password").then((m) => m.ForgotPassword)),
  },
  {
    path: "/auth/reset-password",
    access: "any",
    component: lazyScreen(() => import("./reset-password").then((m) => m.ResetPassword)),
  },
  {
    path: "/auth/verify-email",
    access: "any",
    component: lazyScreen(() => import("./verify-email").then((m) => m.VerifyEmail)),
  },
  {
    path: "/auth/link",
    access: "signed-in",
    component: lazyScreen(() => import("./qr-approve").then((m) => m.QrApprove)),
  },
];
