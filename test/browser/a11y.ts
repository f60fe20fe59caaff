/** Layout and accessibility checks the live PBX screens' browser tests share. */
import { expect } from "bun:test";
import type { Page } from "playwright-core";

/** The page does not scroll sideways at its viewport width (wide tables scroll inside their own box). */
export async function expectNoSidewaysScroll(page: Page, screen: string) {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  expect({ screen, scroll }).toEqual({ screen, scroll: width });
}

/**
 * One h1; every visible control (button, link, input, select) has an accessible name; every table has
 * a name or caption; every canvas sits in a named image (charts are read from their hidden table).
 */
export async function expectNamedControls(page: Page, screen: string) {
  const problems = await page.evaluate(() => {
    const found: string[] = [];
    const text = (el: Element | null) => (el?.textContent ?? "").replace(/\s+/g, " ").trim();
    const nameOf = (el: Element): string => {
      const label = el.getAttribute("aria-label");
      if (label?.trim()) return label.trim();
      const by = el.getAttribute("aria-labelledby");
      if (by)
        return by
          .split(/\s+/)
          .map((id) => text(document.getElementById(id)))
          .join(" ")
          .trim();
      const labels = (el as HTMLInputElement).labels;
      if (labels && labels.length > 0)
        return [...labels]
          .map((l) => text(l))
          .join(" ")
          .trim();
      if (el instanceof HTMLTableElement) return text(el.caption);
      return text(el) || (el.getAttribute("title") ?? "").trim();
    };
    const h1s = [...document.querySelectorAll("h1")].filter((el) => el.checkVisibility());
    if (h1s.length !== 1) found.push(`${h1s.length} h1 elements`);
    const controls = "button, a[href], input:not([type=hidden]), select, textarea, [role=button], [role=combobox]";
    for (const el of document.querySelectorAll(controls)) {
      if (!el.checkVisibility()) continue;
      if (!nameOf(el)) found.push(`unnamed ${el.tagName.toLowerCase()}: ${el.outerHTML.slice(0, 120)}`);
    }
    for (const el of document.querySelectorAll("table")) {
      // A chart's own legend is inside its image (presentational); the chart's data table is outside.
      if (el.closest("[role=img]")) continue;
      if (!nameOf(el)) found.push(`unnamed table: ${el.outerHTML.slice(0, 120)}`);
    }
    for (const el of document.querySelectorAll("canvas")) {
      const img = el.closest("[role=img]");
      if (!img?.getAttribute("aria-label")) found.push("a canvas outside a named image");
    }
    return found;
  });
  expect({ screen, problems }).toEqual({ screen, problems: [] });
}
