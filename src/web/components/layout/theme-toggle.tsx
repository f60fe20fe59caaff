import { Moon, Sun } from "lucide-react";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { cookieValue, setPreferenceCookie } from "@/lib/cookies";
import { documentCookie, ON_SERVER } from "@/lib/prerender";

export type Theme = "dark" | "light";

/** The theme lives in localStorage['theme'] and as the `dark` class on <html> (dark by default). */
export function currentTheme(): Theme {
  // The server's copy of a screen (ADR 0047) is painted in the theme its cookie names.
  if (ON_SERVER) return cookieValue(documentCookie(), "theme") === "light" ? "light" : "dark";
  return document.documentElement.classList.contains("dark") ? "dark" : "light";
}

export function applyTheme(theme: Theme): void {
  document.documentElement.classList.toggle("dark", theme === "dark");
  // Also in a cookie: the server paints a screen's first HTML in it (ADR 0047, theme-init.ts).
  setPreferenceCookie("theme", theme);
  try {
    localStorage.setItem("theme", theme);
  } catch {
    // Storage can be unavailable (private mode); the class still applies for this visit.
  }
}

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(currentTheme);
  const next: Theme = theme === "dark" ? "light" : "dark";

  return (
    <Button
      variant="ghost"
      size="icon"
      className="size-8"
      aria-label="Toggle theme"
      title={`Switch to ${next} theme`}
      onClick={() => {
        applyTheme(next);
        setTheme(next);
      }}
    >
      {theme === "dark" ? <Sun /> : <Moon />}
    </Button>
  );
}
