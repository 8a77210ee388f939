import { useState } from "preact/hooks";
import { Page } from "../../components/page";
import { DeleteAccount, ExportData } from "./data";
import { MyReports } from "./my-reports";
import { Notifications } from "./notifications";
import { PasswordChange } from "./password";
import { Privacy } from "./privacy";
import { Sessions } from "./sessions";
import { TwoFactor } from "./two-factor";

/** /settings: devices, password, two-factor, who may message me, notifications, my reports, my data, deleting the account. */
export function Settings() {
  // a password change signs other devices out: the device list is read again
  const [devicesVersion, setDevicesVersion] = useState(0);
  return (
    <Page title="Settings">
      <nav class="settings-toc" aria-label="Settings sections">
        <a href="#devices">Devices</a>
        <a href="#password">Password</a>
        <a href="#two-factor">Two-factor</a>
        <a href="#messages">Messages</a>
        <a href="#notifications">Notifications</a>
        <a href="#reports">Reports</a>
        <a href="#data">Your data</a>
      </nav>
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
