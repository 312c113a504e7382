import { render } from "preact";
import { loadConfig } from "./api.ts";
import { App } from "./app.tsx";
import { applyStoredTheme } from "./theme.ts";

applyStoredTheme();
await loadConfig();
render(<App />, document.getElementById("app")!);
