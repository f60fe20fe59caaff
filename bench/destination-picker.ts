/**
 * Benchmark (not a test): the destination picker with a campus-sized PBX, in Chromium against the built
 * binary (`npm run build` first). Two consoles run side by side, one with BENCH_EXTENSIONS (5,000)
 * extensions and the reference with BENCH_REFERENCE_EXTENSIONS (10), both numbered from 10000; each
 * repetition opens a dialog on a fresh page of each in turn and times, with the page's own clock:
 *  1. opening the dialog: the click's event time to the end of the first frame showing the destination field;
 *  2. switching the destination kind to Extension: the option's pointerdown to the end of the frame whose
 *     datalist holds the extensions (and no change in the five frames after);
 *  3. typing an extension's number ("10005"), one key every 250 ms: each keydown's event time to the end of
 *     the next frame (input latency), Event Timing's entries of 16 ms or more, and the long tasks (> 50 ms)
 *     from the first keydown to 500 ms after the last.
 * "The end of a frame" is a message posted from its `requestAnimationFrame` callback: it runs once the
 * frame's style, layout and paint are done on the main thread. Each figure is the median over BENCH_RUNS
 * (7) repetitions (keystrokes: over every keystroke of them), after one uncounted repetition per console;
 * the ratio is the loaded console's over the reference's. The goal ("responsive"): the keystrokes' median
 * and 90th percentile each within a frame (1/60 s) of the reference's, and no long task while typing.
 * Dialogs: the Ring Group's no-answer picker (a controlled field: each keystroke renders the picker again)
 * and the Inbound Route's destination (a field of the form's own: a keystroke renders its suggestions
 * only): BENCH_DIALOGS=ring-group,inbound-route.
 * BENCH_BINARY: another build than dist/pbx-console (to compare two builds).
 * Run: node_modules/.bin/bun bench/destination-picker.ts
 */
import { availableParallelism, cpus, loadavg } from "node:os";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launch, signedInContext } from "./lib/browser";
import { type Console, importExtensions, startConsole } from "./lib/console";

const EXTENSIONS = Number(process.env.BENCH_EXTENSIONS ?? 5000);
const REFERENCE = Number(process.env.BENCH_REFERENCE_EXTENSIONS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const BINARY = process.env.BENCH_BINARY || undefined;
const TYPED = "10005";
const KEY_GAP_MS = 250;
/** One frame at 60 Hz: the budget a keystroke's work has before the user sees a late echo. */
const FRAME_MS = 1000 / 60;

interface Dialog {
  name: string;
  path: string;
  button: string;
  kindLabel: string;
  fieldLabel: string;
  /** The field the dialog shows first (the kind select, or the number field when Extension is its default). */
  openLabel: string;
  /** A kind chosen first (not timed) when the dialog opens on Extension. */
  away?: string;
}

const DIALOGS: Dialog[] = [
  {
    name: "ring-group",
    path: "/ring-groups",
    button: "Add Ring Group",
    kindLabel: "If no one answers",
    fieldLabel: "Destination number",
    openLabel: "If no one answers",
  },
  {
    name: "inbound-route",
    path: "/inbound-routes",
    button: "Add Inbound Route",
    kindLabel: "Destination type",
    fieldLabel: "Destination",
    openLabel: "Destination",
    away: "Ring group",
  },
];
const chosen = (process.env.BENCH_DIALOGS ?? "ring-group,inbound-route").split(",");

/**
 * The page's side, installed before any script: long tasks and Event Timing entries from the start, and
 * `__picker.arm(step, startEvent, label, needOptions)`: at the next `startEvent` (captured on the window,
 * before the app's handlers) it times frames until the dialog's field labelled `label` exists (with
 * `needOptions`, until its datalist holds options), then logs `PICKER_DONE <step>` so the bench waits
 * without polling the page. `__picker.keys()` times every keydown to the end of the next frame.
 */
const PROBE = `
  (() => {
    const p = (window.__picker = { longTasks: [], events: [], results: {}, keys: [] });
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) p.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries())
          p.events.push({ name: e.name, start: e.startTime, duration: e.duration, id: e.interactionId });
      }).observe({ type: "event", durationThreshold: 16, buffered: true });
    } catch {}
    const afterFrame = (fn) =>
      requestAnimationFrame(() => {
        const ch = new MessageChannel();
        ch.port1.onmessage = () => fn(performance.now());
        ch.port2.postMessage(0);
      });
    const field = (label) => {
      for (const l of document.querySelectorAll('[role="dialog"] label'))
        if (l.textContent.trim() === label) return document.getElementById(l.htmlFor);
      return null;
    };
    p.arm = (step, startEvent, label, needOptions) => {
      const r = (p.results[step] = { options: -1 });
      const onStart = (e) => {
        removeEventListener(startEvent, onStart, true);
        r.t0 = e.timeStamp;
        let stable = 0;
        const frame = () =>
          afterFrame((t) => {
            const el = field(label);
            const n = el ? (el.list ? el.list.options.length : 0) : -1;
            const ready = el && (!needOptions || n > 0);
            if (ready && n !== r.options) {
              r.options = n;
              r.t1 = t;
              stable = 0;
            } else if (ready) stable++;
            if (ready && stable >= 5) console.debug("PICKER_DONE " + step);
            else frame();
          });
        frame();
      };
      addEventListener(startEvent, onStart, true);
    };
    p.type = () => {
      addEventListener("keydown", (e) => {
        const k = { key: e.key, t0: e.timeStamp };
        p.keys.push(k);
        afterFrame((t) => { k.t1 = t; });
      }, true);
    };
  })();`;

interface Sample {
  openMs: number;
  openLong: number[];
  kindMs: number;
  kindOptions: number;
  kindLong: number[];
  keyMs: number[];
  /** Event Timing's longest entry per keystroke (0: none of 16 ms or more). */
  keyEventMs: number[];
  typingLong: number[];
}

type Probe = {
  longTasks: [number, number][];
  events: { name: string; start: number; duration: number; id: number }[];
  results: Record<string, { t0: number; t1: number; options: number }>;
  keys: { key: string; t0: number; t1?: number }[];
};

type PickerWindow = {
  __picker: Probe & { arm(step: string, startEvent: string, label: string, needOptions: boolean): void; type(): void };
};

const probe = (page: Page) => page.evaluate(() => (window as unknown as PickerWindow).__picker);

async function timed(page: Page, step: string, act: () => Promise<unknown>): Promise<void> {
  const done = page.waitForEvent("console", { predicate: (m) => m.text() === `PICKER_DONE ${step}`, timeout: 60_000 });
  await act();
  await done;
}

/** Picks `option` in the dialog's Radix select `label`; with `step`, the option's click is timed. */
async function choose(page: Page, label: string, option: string, step?: { name: string; field: string }) {
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel(label, { exact: true }).click();
  const item = page.getByRole("option", { name: option, exact: true });
  await item.waitFor();
  await Bun.sleep(200);
  if (!step) return item.click();
  await page.evaluate(([s, f]) => (window as unknown as PickerWindow).__picker.arm(s, "pointerdown", f, true), [
    step.name,
    step.field,
  ] as const);
  await timed(page, step.name, () => item.click());
}

async function once(context: BrowserContext, c: Console, d: Dialog): Promise<Sample> {
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  try {
    await page.goto(c.base + d.path);
    const button = page.getByRole("button", { name: d.button });
    await button.waitFor();
    await page.waitForLoadState("networkidle").catch(() => {});
    await Bun.sleep(300);

    // 1. Opening the dialog, until its destination field shows.
    await page.evaluate(([f]) => (window as unknown as PickerWindow).__picker.arm("open", "click", f, false), [
      d.openLabel,
    ] as const);
    await timed(page, "open", () => button.click());
    // The destination list arrives (the screen may have asked for it already), then the picker renders it.
    for (let i = 0; i < 600; i++) {
      const fetched = await page.evaluate(() =>
        performance.getEntriesByType("resource").some((e) => e.name.endsWith("/api/destinations")),
      );
      if (fetched) break;
      await Bun.sleep(50);
    }
    await Bun.sleep(400);
    if (d.away) {
      await choose(page, d.kindLabel, d.away);
      await Bun.sleep(300);
    }

    // 2. The kind switched to Extension: the datalist of every extension.
    await choose(page, d.kindLabel, "Extension", { name: "kind", field: d.fieldLabel });
    await Bun.sleep(300);

    // 3. Typing a number into the field.
    const input = page.getByRole("dialog").getByLabel(d.fieldLabel, { exact: true });
    await input.click();
    await Bun.sleep(300);
    await page.evaluate(() => (window as unknown as PickerWindow).__picker.type());
    for (const key of TYPED) {
      await page.keyboard.press(key);
      await Bun.sleep(KEY_GAP_MS);
    }
    await Bun.sleep(500);
    const value = await input.inputValue();
    if (value !== TYPED) throw new Error(`${d.name}: the field holds "${value}", not ${TYPED}`);
    const p = await probe(page);
    const open = p.results.open as { t0: number; t1: number };
    const kind = p.results.kind as { t0: number; t1: number; options: number };
    const within = (from: number, to: number) =>
      p.longTasks.filter(([s, dur]) => s + dur > from && s < to).map(([, dur]) => dur);
    const keys = p.keys;
    if (keys.length !== TYPED.length || keys.some((k) => k.t1 === undefined))
      throw new Error(`${d.name}: ${keys.length} keystrokes timed`);
    const first = keys[0]?.t0 ?? 0;
    const last = keys.at(-1)?.t0 ?? 0;
    const keyEventMs = keys.map((k, i) => {
      const end = keys[i + 1]?.t0 ?? Number.POSITIVE_INFINITY;
      const own = p.events.filter((e) => e.start >= k.t0 - 1 && e.start < end);
      return Math.max(0, ...own.map((e) => e.duration));
    });
    return {
      openMs: open.t1 - open.t0,
      openLong: within(open.t0, open.t1),
      kindMs: kind.t1 - kind.t0,
      kindOptions: kind.options,
      kindLong: within(kind.t0, kind.t1),
      keyMs: keys.map((k) => (k.t1 as number) - k.t0),
      keyEventMs,
      typingLong: within(first, last + 500),
    };
  } finally {
    await page.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};
const ms = (v: number) => `${v.toFixed(1)} ms`;
const pct = (v: number) => `${Math.round(v * 100)} %`;
const log = (...a: unknown[]) => console.error("·", ...a);

async function seeded(count: number): Promise<{ c: Console; context: BrowserContext | null }> {
  const c = await startConsole({ binary: BINARY });
  if (count > 0) await importExtensions(c, count);
  return { c, context: null };
}

const loaded = await seeded(EXTENSIONS);
const reference = await seeded(REFERENCE);
let browser: Browser | null = null;
try {
  browser = await launch();
  for (const side of [loaded, reference]) {
    side.context = await signedInContext(browser, side.c);
    await side.context.addInitScript(PROBE);
  }
  const lines: string[][] = [];
  for (const d of DIALOGS.filter((x) => chosen.includes(x.name))) {
    const samples = { loaded: [] as Sample[], reference: [] as Sample[] };
    for (let run = 0; run <= RUNS; run++) {
      // Alternate which console goes first, so a slow patch of the shared machine falls on both.
      const order = run % 2 ? (["reference", "loaded"] as const) : (["loaded", "reference"] as const);
      for (const which of order) {
        const side = which === "loaded" ? loaded : reference;
        const s = await once(side.context as BrowserContext, side.c, d);
        log(
          d.name,
          which,
          run === 0 ? "(warm-up)" : `run ${run}`,
          `open ${ms(s.openMs)}`,
          `kind ${ms(s.kindMs)} (${s.kindOptions} options)`,
          `keys ${s.keyMs.map((v) => v.toFixed(0)).join("/")} ms`,
          `event timing ${s.keyEventMs.join("/")}`,
          `long tasks: open ${s.openLong.map((v) => v.toFixed(0)).join(",") || "none"}, kind ${s.kindLong.map((v) => v.toFixed(0)).join(",") || "none"}, typing ${s.typingLong.map((v) => v.toFixed(0)).join(",") || "none"}`,
        );
        if (run > 0) samples[which].push(s);
      }
    }
    const fig = (ss: Sample[]) => {
      const keys = ss.flatMap((s) => s.keyMs);
      const typingLong = ss.flatMap((s) => s.typingLong);
      return {
        open: median(ss.map((s) => s.openMs)),
        openLong: Math.max(0, ...ss.flatMap((s) => s.openLong)),
        kind: median(ss.map((s) => s.kindMs)),
        kindLong: Math.max(0, ...ss.flatMap((s) => s.kindLong)),
        options: median(ss.map((s) => s.kindOptions)),
        key: median(keys),
        keyP90: quantile(keys, 0.9),
        keyMax: Math.max(...keys),
        perKey: [...TYPED].map((_, i) => median(ss.map((s) => s.keyMs[i] as number))),
        events: ss.flatMap((s) => s.keyEventMs).filter((v) => v > 0),
        typingLong,
        keystrokes: keys.length,
      };
    };
    const a = fig(samples.loaded);
    const r = fig(samples.reference);
    const ref = `${REFERENCE} extensions`;
    const longText = (xs: number[]) => (xs.length ? `${xs.length} (longest ${ms(Math.max(...xs))})` : "none");
    lines.push(
      [
        `${d.name}: opening the dialog to its destination field (longest task ${ms(a.openLong)}; reference ${ms(r.openLong)})`,
        ms(a.open),
        `${ref}: ${ms(r.open)}`,
        pct(a.open / r.open),
        "",
        "",
      ],
      [
        `${d.name}: kind → Extension, datalist of ${a.options} options (reference ${r.options}; longest task ${ms(a.kindLong)}, reference ${ms(r.kindLong)})`,
        ms(a.kind),
        `${ref}: ${ms(r.kind)}`,
        pct(a.kind / r.kind),
        "",
        "",
      ],
      [
        `${d.name}: keydown to the end of the next frame, median of ${a.keystrokes} keystrokes (p90 ${ms(a.keyP90)}, max ${ms(a.keyMax)}; per key ${a.perKey.map((v) => v.toFixed(1)).join(" / ")})`,
        ms(a.key),
        `${ref}: ${ms(r.key)} (p90 ${ms(r.keyP90)}, max ${ms(r.keyMax)}; per key ${r.perKey.map((v) => v.toFixed(1)).join(" / ")})`,
        `${pct(a.key / r.key)}, ${a.key - r.key >= 0 ? "+" : ""}${ms(a.key - r.key)}`,
        `median and p90 ≤ the reference's + a frame (${ms(FRAME_MS)})`,
        a.key - r.key <= FRAME_MS && a.keyP90 - r.keyP90 <= FRAME_MS ? "met" : "NOT MET",
      ],
      [
        `${d.name}: keystrokes with an Event Timing entry ≥ 16 ms`,
        `${a.events.length} of ${a.keystrokes}${a.events.length ? ` (longest ${a.events.length ? Math.max(...a.events) : 0} ms)` : ""}`,
        `${r.events.length} of ${r.keystrokes}${r.events.length ? ` (longest ${Math.max(...r.events)} ms)` : ""}`,
        "",
        "",
        "",
      ],
      [
        `${d.name}: long tasks (> 50 ms) while typing`,
        longText(a.typingLong),
        longText(r.typingLong),
        "",
        "none",
        a.typingLong.length === 0 ? "met" : "NOT MET",
      ],
    );
  }
  console.log(
    `\nMachine: ${cpus()[0]?.model ?? "?"}, ${availableParallelism()} cores, load average ${loadavg()
      .map((v) => v.toFixed(1))
      .join(" ")}; ${new Date().toISOString()}`,
  );
  console.log(
    `${EXTENSIONS} extensions against ${REFERENCE}, medians of ${RUNS} repetitions; "${TYPED}" typed one key every ${KEY_GAP_MS} ms.\n`,
  );
  console.log("| scenario | figure | reference | ratio | goal |  |\n| --- | --- | --- | --- | --- | --- |");
  for (const l of lines) console.log(`| ${l.join(" | ")} |`);
} finally {
  await browser?.close().catch(() => {});
  await loaded.c.stop();
  await reference.c.stop();
}
