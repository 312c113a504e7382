import { useState } from "preact/hooks";
import { currentTheme, setTheme } from "../theme.ts";

export function ThemeToggle() {
	const [theme, setState] = useState(currentTheme());
	const next = theme === "dark" ? "light" : "dark";
	return (
		<button
			type="button"
			class="button ghost"
			aria-label={`Switch to ${next} theme`}
			onClick={() => {
				setTheme(next);
				setState(next);
			}}
		>
			{theme === "dark" ? "☀" : "☾"}
		</button>
	);
}
