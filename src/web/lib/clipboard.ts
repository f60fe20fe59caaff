/**
 * Puts text on the clipboard. The async Clipboard API needs a secure context
 * (HTTPS or loopback); a console opened over plain HTTP on the LAN falls back
 * to the old select-and-copy command.
 */
export async function copyText(text: string): Promise<void> {
  if (window.isSecureContext && navigator.clipboard) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("This browser does not allow copying from the page.");
}
