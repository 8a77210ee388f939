import { render } from "preact";
import { App } from "./app";
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

render(<App />, document.getElementById("app")!);
