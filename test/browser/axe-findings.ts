// axe-core's serious findings on a page: the scan test/browser/axe.test.ts runs on every screen,
// and screen tests run on a screen with its live data (e.g. test/browser/ai-live.test.ts).
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";

const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
export interface Finding {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** axe-core's findings that must not be there (WCAG 2.1 A/AA rules and best practices). */
export async function seriousFindings(page: Page): Promise<Finding[]> {
  // The scan is of the state the screen settles in, not of a frame in a transition: a button fading in
  // from its disabled 50 % once its form is filled was caught at 85 % opacity (3.92:1 on /settings). Finite
  // animations (transitions) are waited for, again if one starts meanwhile; spinners and pulses run forever
  // and are left alone. Disabled controls are outside axe's contrast rule, as in WCAG.
  await page.evaluate(async () => {
    const until = performance.now() + 5_000;
    for (;;) {
      const finite = document
        .getAnimations()
        .filter((a) => a.playState === "running" && a.effect?.getComputedTiming().endTime !== Infinity);
      if (finite.length === 0 || performance.now() > until) return;
      await Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
      await new Promise((resolve) => requestAnimationFrame(resolve));
    }
  });
  // Evaluated through the DevTools protocol: the console's Content-Security-Policy forbids inline script.
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: unknown,
            opts: unknown,
          ) => Promise<{
            violations: Array<{
              id: string;
              impact: string | null;
              help: string;
              nodes: Array<{
                target: unknown[];
                any: Array<{ data?: { fgColor?: string; bgColor?: string; contrastRatio?: number } }>;
              }>;
            }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
      resultTypes: ["violations"],
    });
    return (
      result.violations
        // Serious and critical, plus the page-structure rules (moderate in axe, asked for by name): every
        // node inside a landmark, one main landmark, a way to skip the navigation, one h1.
        .filter(
          (v) =>
            v.impact === "serious" ||
            v.impact === "critical" ||
            ["region", "landmark-one-main", "bypass", "page-has-heading-one", "landmark-unique"].includes(v.id),
        )
        .map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          nodes: v.nodes.slice(0, 5).map((n) => {
            // A contrast finding says which colours: the one to change in styles.css.
            const d = n.any[0]?.data;
            const colours = d?.fgColor ? ` ${d.fgColor} on ${d.bgColor} = ${d.contrastRatio}:1` : "";
            return `${JSON.stringify(n.target)}${colours}`;
          }),
        }))
    );
  });
}
