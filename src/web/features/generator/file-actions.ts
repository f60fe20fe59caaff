/** Saving the generated script; no DOM state outside the call (copying: lib/clipboard.ts). */

/** `pbx-config-YYYY-MM-DD.sql`, in the browser's local date. */
export function scriptFileName(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `pbx-config-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.sql`;
}

/** Saves text as a file through a Blob URL and a temporary `<a download>`. */
export function downloadText(text: string, fileName: string, type = "application/sql"): void {
  const url = URL.createObjectURL(new Blob([text], { type: `${type};charset=utf-8` }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.style.display = "none";
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Give the browser a moment to start the download before the URL goes away.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
