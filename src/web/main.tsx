import { render } from "preact";
import { App } from "./app";
import { startLanguage } from "./lib/i18n";
import "./styles/base.css";
import "./styles/forms.css";
import "./styles/shell.css";
import "./styles/feed.css";
import "./styles/admin.css";
import "./styles/personal.css";
import "./styles/chat.css";
import "./styles/people.css";
import "./styles/reports.css";
import "./styles/pickers.css";

// the catalog comes before the first render, so no text flashes in another language
void startLanguage().then(() => render(<App />, document.getElementById("app")!));
