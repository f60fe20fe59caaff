// The layering rules of ARCHITECTURE.md, checked on the source: a rule nobody checks is a rule that erodes.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import ts from "typescript";

const root = join(import.meta.dir, "../..");

function filesUnder(dir: string, pattern = "**/*.{ts,tsx}"): { path: string; text: string }[] {
  return [...new Bun.Glob(pattern).scanSync({ cwd: join(root, dir) })].map((rel) => {
    const path = `${dir}/${rel}`;
    return { path, text: require("node:fs").readFileSync(join(root, path), "utf8") as string };
  });
}

/** Module specifiers a file imports (static, dynamic and re-exports). */
const importsOf = (text: string) =>
  [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g)].map((m) => m[1] as string);

function offenders(files: { path: string; text: string }[], bad: (spec: string) => boolean) {
  return files.flatMap((f) =>
    importsOf(f.text)
      .filter(bad)
      .map((spec) => `${f.path} imports ${spec}`),
  );
}

const DOMAIN_AREAS = [
  "inventory",
  "pbx",
  "live",
  "cdr",
  "ai",
  "accounts",
  "integrations",
  "backup",
  "jobs",
  "core",
  "routing",
  "firewall",
  "metrics",
  "alerts",
  "update",
];

describe("server layers", () => {
  test("route files import neither drizzle-orm nor the table definitions", () => {
    const bad = offenders(
      filesUnder("src/server/routes"),
      (s) => s.startsWith("drizzle-orm") || /\/db\/schema$/.test(s),
    );
    expect(bad).toEqual([]);
  });

  test("domain modules know nothing of HTTP: no HttpError, no http.ts, no route files", () => {
    // Each area is named here by its folder: a renamed folder must fail this test, not drop out of it.
    const empty = DOMAIN_AREAS.filter((area) => filesUnder(`src/server/${area}`).length === 0);
    expect(empty).toEqual([]);
    const files = DOMAIN_AREAS.flatMap((area) => filesUnder(`src/server/${area}`));
    expect(
      offenders(files, (s) => (/(^|\/)http$/.test(s) && !s.includes("clients/")) || /\/routes(\/|$)/.test(s)),
    ).toEqual([]);
    expect(
      files.filter((f) => /new HttpError|Response\.json\(|new Response\(/.test(f.text)).map((f) => f.path),
    ).toEqual([]);
  });

  test("only the clients make outside calls", () => {
    const server = filesUnder("src/server").filter((f) => !f.path.startsWith("src/server/clients/"));
    // `fetch(req) {` is Bun.serve's handler, not a call.
    const calls = (text: string) =>
      text.split("\n").some((l) => /\bfetch\(/.test(l) && !/^\s*fetch\(\w+\)\s*\{/.test(l));
    expect(server.filter((f) => calls(f.text)).map((f) => f.path)).toEqual([]);
    expect(offenders(server, (s) => s === "ssh2" || s === "node:net" || s === "node:http")).toEqual([]);
    // Bun's SQL client (MariaDB over TCP: the call records) is opened by a client module only.
    expect(server.filter((f) => /\bnew SQL\(|\bBun\.connect\(|\bBun\.SQL\b/.test(f.text)).map((f) => f.path)).toEqual(
      [],
    );
  });
});

describe("start-up", () => {
  // The binary evaluates every module it imports statically before it answers (ADR 0034): the SSH client,
  // the QR encoder, the OpenAI SDK, Bun's SQL client and Node's crypto, zlib and net modules are loaded when
  // first used.
  // A value import of any of them is an offender (`import type` is erased and loads nothing).
  const LAZY = new Set([
    "ssh2",
    "qrcode",
    "openai",
    "bun:sql",
    "node:crypto",
    "crypto",
    "node:zlib",
    "zlib",
    "node:net",
    "net",
    "node:tls",
    "tls",
  ]);

  test("ssh2, qrcode, openai, bun:sql and node:crypto/zlib/net are imported only where they are used, never at start", () => {
    const server = filesUnder("src/server");
    const staticValueImports = server.flatMap((f) =>
      [...f.text.matchAll(/^import\s+(?!type\b)([^;]*?)\s+from\s+["']([^"']+)["']/gm)]
        .filter(
          ([, what, spec]) =>
            LAZY.has(spec as string) ||
            (spec === "bun" && /\bSQL\b/.test((what as string).replace(/\btype\s+\w+/g, ""))),
        )
        .map(([, , spec]) => `${f.path} imports ${spec}`),
    );
    expect(staticValueImports).toEqual([]);
    // …and each is still used somewhere, loaded on demand (a dynamic import, a require in lazy-node.ts, or Bun.SQL).
    const all = server.map((f) => f.text).join("\n");
    expect(all).toContain('import("ssh2")');
    expect(all).toContain('import("qrcode")');
    expect(all).toContain('import("openai")');
    expect(all).toMatch(/new Bun\.SQL\(/);
    const lazy = server.find((f) => f.path.endsWith("src/server/lazy-node.ts"))?.text ?? "";
    for (const m of ["crypto", "zlib"]) expect(lazy).toContain(`require("node:${m}")`);
    // Nothing else requires a module, but the AMI client its socket (a client, the only one with node:net) and the
    // fleet's member client its TLS connection (checked against the pin before a byte is sent).
    const requires = server.flatMap((f) =>
      [...f.text.matchAll(/\brequire\(\s*["']([^"']+)["']/g)].map((m) => `${f.path} ${m[1]}`),
    );
    expect(requires.sort()).toEqual([
      "src/server/clients/ami.ts node:net",
      "src/server/clients/fleet-member.ts node:tls",
      "src/server/lazy-node.ts node:crypto",
      "src/server/lazy-node.ts node:zlib",
    ]);
  });
});

describe("the CLI", () => {
  test("serving evaluates no CLI command: each is imported only when it is the one asked for", () => {
    const index = filesUnder("src/server", "index.ts")[0]?.text ?? "";
    const statics = [...index.matchAll(/^import\s+(?!type\b)[^;]*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]);
    expect(statics.filter((s) => s?.startsWith("./cli/"))).toEqual([]);
    for (const c of ["create-admin", "unlock", "restore", "update"])
      expect(index).toContain(`await import("./cli/${c}")`);
  });
});

describe("schemas are built at first use (ADR 0048)", () => {
  // A module-level call that makes a zod schema: one on `z`, on a `…Schema` value, or a field builder of
  // src/shared/fields.ts. Inside a function (a `lazySchema` builder among them) it runs when called.
  const FIELD_BUILDERS = new Set(
    Object.entries(require("../../src/shared/fields") as Record<string, unknown>)
      .filter(([, v]) => typeof v === "function")
      .map(([k]) => k),
  );
  function eagerSchemas(path: string, text: string): string[] {
    const sf = ts.createSourceFile(
      path,
      text,
      ts.ScriptTarget.Latest,
      true,
      path.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
    );
    const found: string[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isFunctionLike(n)) return;
      if (ts.isCallExpression(n)) {
        let root: ts.Expression = n.expression;
        while (ts.isPropertyAccessExpression(root) || ts.isCallExpression(root)) root = root.expression;
        const name = ts.isIdentifier(root) ? root.text : "";
        const zodConfig =
          name === "z" && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === "config";
        if (
          (name === "z" && !zodConfig) ||
          (/Schema$/.test(name) && name !== "lazySchema") ||
          FIELD_BUILDERS.has(name)
        ) {
          const line = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;
          found.push(`${path}:${line} ${n.getText(sf).slice(0, 50).replace(/\s+/g, " ")}`);
          return;
        }
      }
      ts.forEachChild(n, visit);
    };
    for (const st of sf.statements) if (!ts.isImportDeclaration(st)) visit(st);
    return found;
  }

  test("no module builds a schema when it is imported: module-level schemas go through lazySchema", () => {
    const files = ["src/shared", "src/server", "src/web"].flatMap((d) => filesUnder(d));
    expect(files.length).toBeGreaterThan(200);
    expect(files.flatMap((f) => eagerSchemas(f.path, f.text))).toEqual([]);
    // The check sees what it is for: an eager schema, a field builder and a derived schema at module level.
    expect(
      eagerSchemas("x.ts", 'const a = z.object({});\nconst b = required("B", 5);\nconst c = aSchema.extend({});'),
    ).toHaveLength(3);
    expect(eagerSchemas("x.ts", 'const a = lazySchema(() => z.object({ b: required("B", 5) }));')).toEqual([]);
  });

  test("lazy-schema.ts imports nothing, so the web shell (which imports it through ws-events.ts) carries no zod", () => {
    const [lazy] = filesUnder("src/shared", "lazy-schema.ts");
    expect(lazy && importsOf(lazy.text)).toEqual([]);
  });

  test("importing every shared module and the server builds no schema, nor does reading the configuration", () => {
    const shared = filesUnder("src/shared", "**/*.ts").map((f) => JSON.stringify(join(root, f.path)));
    const script = `
      const { lazySchemasBuilt } = await import(${JSON.stringify(join(root, "src/shared/lazy-schema.ts"))});
      for (const f of [${shared.join(",")}]) await import(f);
      await import(${JSON.stringify(join(root, "src/server/app.ts"))});
      const imported = lazySchemasBuilt();
      const { loadConfig } = await import(${JSON.stringify(join(root, "src/server/config.ts"))});
      loadConfig({ PORT: "3000" }, false);
      console.log(JSON.stringify({ imported, config: lazySchemasBuilt() - imported }));`;
    const run = Bun.spawnSync([process.execPath, "-e", script], { cwd: root, env: { PATH: process.env.PATH ?? "" } });
    expect(run.stderr.toString()).toBe("");
    expect(JSON.parse(run.stdout.toString())).toEqual({ imported: 0, config: 0 });
  });
});

/** The module a relative or `@/` specifier of `from` names (a file of src/), or null for a package. */
function resolveIn(files: Set<string>, from: string, spec: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = `src/web/${spec.slice(2)}`;
  else if (spec.startsWith(".")) base = join(from, "..", spec);
  else return null;
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`])
    if (files.has(c)) return c;
  return null;
}

/** The strongly connected groups of more than one module (each an import cycle), in the import graph of `files`. */
function importCycles(files: { path: string; text: string }[]): string[][] {
  const paths = new Set(files.map((f) => f.path));
  const graph = new Map(
    files.map((f) => [
      f.path,
      [...new Set(importsOf(f.text).map((spec) => resolveIn(paths, f.path, spec)))].filter((x): x is string => !!x),
    ]),
  );
  // Tarjan's algorithm.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (;;) {
      const w = stack.pop() as string;
      onStack.delete(w);
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const f of paths) if (!index.has(f)) visit(f);
  return cycles;
}

/**
 * Imports of one feature's modules by another, beyond its `api.ts` (any feature may read another's data through
 * its queries): each a component or helper shared on purpose. A new one is added here with the reason it is not
 * in `components/` or `lib/`.
 */
const FEATURE_IMPORTS_ALLOWED = new Set([
  // Two-factor enrolment at sign-in is the account page's section.
  "auth -> account/two-factor-section",
  // The call history shows parties and durations as the live calls do.
  "call-history -> calls/format",
  "call-history -> calls/party",
  // A call's detail shows its parties, durations and result as the history row it opens from.
  "call-detail -> call-history/disposition",
  "call-detail -> calls/format",
  "call-detail -> calls/party",
  // A deployment and a sync import run as jobs, reviewed as plans.
  "deployment -> jobs/job-progress",
  "deployment -> review/plan-parts",
  "deployment -> review/stale-plan",
  // The deploy review lists the calls a plan reroutes, each path as the routing simulator draws it.
  "deployment -> routing/rerouted-calls",
  // An announcement names its destination and its recording as an IVR does.
  "announcements -> ivrs/labels",
  "announcements -> ivrs/recording-field",
  "sync -> jobs/job-progress",
  "sync -> review/plan-parts",
  "sync -> review/stale-plan",
  // A configuration document's plan is reviewed with the same pieces.
  "config-document -> review/plan-parts",
  "config-document -> review/stale-plan",
  // Lists show live registration state, undo a delete and hand out the softphone link.
  "extensions -> live/live-badges",
  "trunks -> live/live-badges",
  "extensions -> safe-delete/undo-toast",
  "extensions -> softphone/link-view",
  "softphone -> extensions/push-button",
  "ptt -> extensions/filter",
  "telnyx -> settings/secret-input",
  // An off-site target's secret is typed as the API Settings' secrets are.
  "offsite-backups -> settings/secret-input",
  // An alert channel's secrets are typed like API Settings' ones: masked, with a show toggle.
  "alert-channels -> settings/secret-input",
]);

describe("module boundaries", () => {
  test("no import cycles in src/, type imports included", () => {
    const files = ["src/shared", "src/server", "src/web", "src/db"].flatMap((d) => filesUnder(d));
    expect(importCycles(files)).toEqual([]);
    // The check sees a cycle, a type-only one too.
    expect(
      importCycles([
        { path: "src/a.ts", text: 'import { b } from "./b";' },
        { path: "src/b.ts", text: 'import type { A } from "./a";' },
      ]),
    ).toEqual([["src/a.ts", "src/b.ts"]]);
  });

  test("features never import pages", () => {
    expect(offenders(filesUnder("src/web/features"), (s) => /^@\/pages\/|\/pages\//.test(s))).toEqual([]);
  });

  test("a feature imports another's api.ts, or only what the allow-list names", () => {
    const crossing = filesUnder("src/web/features").flatMap((f) => {
      const from = f.path.split("/")[3] as string;
      return importsOf(f.text)
        .map((spec) => /^@\/features\/([^/]+)\/(.+)$/.exec(spec) ?? /^\.\.\/([^./][^/]*)\/(.+)$/.exec(spec))
        .filter((m): m is RegExpExecArray => !!m && m[1] !== from && m[2] !== "api")
        .map((m) => `${from} -> ${m[1]}/${m[2]}`);
    });
    expect([...new Set(crossing)].filter((c) => !FEATURE_IMPORTS_ALLOWED.has(c))).toEqual([]);
    // Every entry is still used: the list says what is, not what was.
    expect([...FEATURE_IMPORTS_ALLOWED].filter((a) => !crossing.includes(a))).toEqual([]);
  });
});

describe("shared and web", () => {
  test("src/shared is browser-safe: no server, database or bun imports", () => {
    expect(offenders(filesUnder("src/shared"), (s) => /src\/server|\/server\/|\/db\/|^bun:|^node:/.test(s))).toEqual(
      [],
    );
  });

  test("the web app never imports server or database code", () => {
    expect(offenders(filesUnder("src/web"), (s) => /\/server\/|\/db\/|^bun:/.test(s))).toEqual([]);
  });

  test("components reach the API only through their feature's api.ts", () => {
    const tsx = filesUnder("src/web", "**/*.tsx");
    expect(offenders(tsx, (s) => /(^|\/)lib\/api$|^@\/lib\/api$/.test(s))).toEqual([]);
    expect(tsx.filter((f) => /\bfetch\(/.test(f.text)).map((f) => f.path)).toEqual([]);
  });
});
