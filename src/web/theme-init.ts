// Applies the saved theme before the app renders (dark by default). It was an inline script in
// index.html; it is a file now so the Content-Security-Policy can forbid inline script (ADR 0014).
// index.html lists it before main.tsx, so the bundle runs it first, before React renders anything.
// The theme is also kept in a cookie: a screen's picture rendered by the server (ADR 0047) is painted before
// this runs, in the theme the cookie names. The saved choice wins; a cookie without one (storage cleared or
// unavailable) is taken as the choice; the two are kept the same.
try {
  const cookie = /(?:^|;\s*)theme=(light|dark)(?:;|$)/.exec(document.cookie)?.[1];
  const theme = localStorage.getItem("theme") ?? cookie ?? "dark";
  document.documentElement.classList.toggle("dark", theme !== "light");
  if (cookie !== theme) {
    // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie, as the sidebar's.
    document.cookie = `theme=${theme === "light" ? "light" : "dark"}; path=/; max-age=31536000; SameSite=Strict`;
  }
} catch {
  // Storage can be unavailable (private mode): keep the default.
}
