import { useState } from "preact/hooks";
import { t } from "../../lib/i18n";
import { Page } from "../../components/page";
import { DeleteAccount, ExportData } from "./data";
import { LanguageChoice } from "./language";
import { MyReports } from "./my-reports";
import { Notifications } from "./notifications";
import { PasswordChange } from "./password";
import { Privacy } from "./privacy";
import { Sessions } from "./sessions";
import { TwoFactor } from "./two-factor";

/** /settings: language, devices, password, two-factor, who may message me, notifications, my reports, my data, deleting the account. */
export function Settings() {
  // a password change signs other devices out: the device list is read again
  const [devicesVersion, setDevicesVersion] = useState(0);
  return (
    <Page title={t("settings.page.title")}>
      <nav class="settings-toc" aria-label={t("settings.page.sections")}>
        <a href="#language">{t("settings.language")}</a>
        <a href="#devices">{t("settings.page.devices")}</a>
        <a href="#password">{t("settings.page.password")}</a>
        <a href="#two-factor">{t("settings.page.twoFactor")}</a>
        <a href="#messages">{t("settings.page.messages")}</a>
        <a href="#notifications">{t("settings.page.notifications")}</a>
        <a href="#reports">{t("settings.page.reports")}</a>
        <a href="#data">{t("settings.page.data")}</a>
      </nav>
      <div id="language">
        <LanguageChoice />
      </div>
      <div id="devices">
        <Sessions version={devicesVersion} />
      </div>
      <div id="password">
        <PasswordChange onChanged={() => setDevicesVersion((v) => v + 1)} />
      </div>
      <div id="two-factor">
        <TwoFactor />
      </div>
      <div id="messages">
        <Privacy />
      </div>
      <div id="notifications">
        <Notifications />
      </div>
      <div id="reports">
        <MyReports />
      </div>
      <div id="data" class="settings-stack">
        <ExportData />
        <DeleteAccount />
      </div>
    </Page>
  );
}
