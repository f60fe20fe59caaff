// ADR 0046: the Inventory screens' group chunk holds no zod, react-hook-form or resolvers; their forms come
// on demand through one dynamic import. Checked on the source's static import graph (type-only imports
// are dropped by the transpiler, as by the bundler), so a page that imports a schema value fails here.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const root = join(import.meta.dir, "../..");
const transpiler = new Bun.Transpiler({ loader: "tsx" });
const FORM_LIBRARIES = /^(zod|react-hook-form|@hookform\/)/;

function resolveSpecifier(from: string, spec: string): string | null {
  const base = spec.startsWith("@/")
    ? join(root, "src/web", spec.slice(2))
    : spec.startsWith(".")
      ? join(dirname(from), spec)
      : null;
  if (!base) return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (/\.tsx?$/.test(candidate) && existsSync(candidate)) return candidate;
  }
  throw new Error(`cannot resolve ${spec} from ${relative(root, from)}`);
}

/** The form libraries `entry` reaches by static imports, each with the chain of modules that leads there. */
function formLibrariesReached(entry: string): string[] {
  const start = join(root, entry);
  const via = new Map<string, string>([[start, relative(root, start)]]);
  const pending = [start];
  const found: string[] = [];
  while (pending.length) {
    const file = pending.pop() as string;
    for (const { path, kind } of transpiler.scanImports(readFileSync(file, "utf8"))) {
      if (kind === "dynamic-import") continue;
      if (FORM_LIBRARIES.test(path)) {
        found.push(`${via.get(file)} -> ${path}`);
        continue;
      }
      const next = resolveSpecifier(file, path);
      if (!next || via.has(next)) continue;
      via.set(next, `${via.get(file)} -> ${relative(root, next)}`);
      pending.push(next);
    }
  }
  return found;
}

describe("the Inventory forms on demand (ADR 0046)", () => {
  test("the Inventory group reaches neither zod nor react-hook-form nor the resolvers", () => {
    expect(formLibrariesReached("src/web/pages/group-inventory.ts")).toEqual([]);
  });

  test("its forms barrel does (the check sees through the re-exports)", () => {
    const reached = formLibrariesReached("src/web/pages/forms-inventory.ts").map((chain) => chain.split(" -> ").at(-1));
    expect(new Set(reached)).toEqual(new Set(["zod", "react-hook-form", "@hookform/resolvers/zod"]));
  });
});
