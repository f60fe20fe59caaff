// Applies the saved theme before the app renders (dark by default). It was an inline script in
// index.html; it is a file now so the Content-Security-Policy can forbid inline script (ADR 0014).
// index.html lists it before main.tsx, so the bundle runs it first, before React renders anything.
try {
  if (localStorage.getItem("theme") === "light") document.documentElement.classList.remove("dark");
} catch {
  // Storage can be unavailable (private mode): keep the default.
}
