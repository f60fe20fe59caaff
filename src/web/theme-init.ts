// Applies the saved theme before the app renders (dark by default). It was an inline script in
// index.html; it is a file now so the Content-Security-Policy can forbid inline script (ADR 0014).
// index.html lists it before main.tsx, so the bundle runs it first, before React renders anything.
// The theme is also kept in a cookie: a screen's picture rendered by the server (ADR 0047) is painted before
// this runs, in the theme the cookie names. The saved choice wins; a cookie without one (storage cleared or
// unavailable) is taken as the choice; the two are kept the same.
import { cookieValue, setPreferenceCookie } from "./lib/cookies";

try {
  const cookie = cookieValue(document.cookie, "theme");
  const theme = localStorage.getItem("theme") ?? cookie ?? "dark";
  document.documentElement.classList.toggle("dark", theme !== "light");
  if (cookie !== theme) {
    setPreferenceCookie("theme", theme === "light" ? "light" : "dark");
  }
} catch {
  // Storage can be unavailable (private mode): keep the default.
}
