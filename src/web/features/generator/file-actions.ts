/** Saving the generated script; no DOM state outside the call (copying: lib/clipboard.ts). */

/** `pbx-config-YYYY-MM-DD.sql`, in the browser's local date. */
export function scriptFileName(now = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `pbx-config-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.sql`;
}

/**
 * Downloads a same-origin URL through a temporary `<a download>`: the browser streams the answer to the
 * file itself (the script is never held in the page's memory).
 */
export function downloadUrl(url: string, fileName: string): void {
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  link.style.display = "none";
  document.body.appendChild(link);
  link.click();
  link.remove();
}
