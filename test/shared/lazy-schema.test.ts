// lazySchema (ADR 0048): a stand-in that builds its schema at first use and then behaves as that schema.
import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { optionalText, required } from "../../src/shared/fields";
import { lazySchema } from "../../src/shared/lazy-schema";

const build = () =>
  z
    .object({ name: required("Name", 5), port: z.number().int("Port must be a whole number").default(5060) })
    .refine((v) => v.name !== "admin", { message: "Name is reserved", path: ["name"] });

function counted() {
  let builds = 0;
  const schema = lazySchema(() => {
    builds++;
    return build();
  });
  return { schema, builds: () => builds };
}

describe("lazySchema", () => {
  test("builds nothing until the schema is used, then builds it once", () => {
    const { schema, builds } = counted();
    const outer = z.object({ inner: schema });
    expect(builds()).toBe(0);
    expect(outer.parse({ inner: { name: " a " } })).toEqual({ inner: { name: "a", port: 5060 } });
    schema.parse({ name: "b" });
    schema.safeParse({});
    expect(builds()).toBe(1);
  });

  test("parses, fails and words its messages exactly as the schema it stands for", () => {
    const eager = build();
    const { schema } = counted();
    for (const input of [{ name: "x" }, { name: "" }, { name: "toolong" }, { name: "admin" }, { port: 1.5 }, 7, null]) {
      const a = eager.safeParse(input);
      const b = schema.safeParse(input);
      expect(b.success).toBe(a.success);
      expect(b.data).toEqual(a.data);
      expect(b.error?.issues).toEqual(a.error?.issues);
    }
  });

  test("is the schema for everything that inspects one: instanceof, in, keys, shape, extend, JSON Schema", () => {
    const object = lazySchema(() => z.object({ a: z.string(), b: z.number().optional() }));
    expect(object instanceof z.ZodObject).toBe(true);
    expect(object instanceof z.ZodType).toBe(true);
    expect("_zod" in object).toBe(true);
    expect(Object.keys(object.shape)).toEqual(["a", "b"]);
    expect(object.extend({ c: z.boolean() }).parse({ a: "x", c: true })).toEqual({ a: "x", c: true });
    expect(object.partial().parse({})).toEqual({});
    expect(z.toJSONSchema(object)).toEqual(z.toJSONSchema(z.object({ a: z.string(), b: z.number().optional() })));
    // A method taken off the schema still works (react-hook-form's resolver and our validate() pass them around).
    const { parse } = object;
    expect(parse({ a: "y" })).toEqual({ a: "y" });
  });

  test("JSON Schema (the OpenAPI contract) comes out as for the eager schema, nested optionals, transforms and descriptions included", () => {
    const make = (wrap: <S extends object>(f: () => S) => S) => {
      const host = wrap(() => z.string().trim().max(255).optional());
      const note = wrap(() => optionalText("Note", 20));
      const fingerprint = wrap(() =>
        z
          .string()
          .regex(/^[0-9a-f]{64}$/)
          .describe("The plan's fingerprint"),
      );
      return wrap(() => z.object({ host, note, fingerprint, inner: wrap(() => z.object({ host })) }));
    };
    const io = { io: "input", unrepresentable: "any" } as const;
    const eager = z.toJSONSchema(
      make((f) => f()),
      io,
    );
    expect(z.toJSONSchema(make(lazySchema), io)).toEqual(eager);
    expect(JSON.stringify(eager)).toContain("The plan's fingerprint");
  });

  test("a schema that reads itself while being built is refused with a message, not a stack overflow", () => {
    const self: z.ZodType = lazySchema(() => z.object({ me: self.optional() }));
    expect(() => self.parse({})).toThrow("reads itself while being built");
  });

  test("works inside unions and discriminated unions", () => {
    const a = lazySchema(() => z.object({ kind: z.literal("a"), n: z.number() }));
    const b = z.object({ kind: z.literal("b") });
    const union = z.discriminatedUnion("kind", [a, b]);
    expect(union.parse({ kind: "a", n: 1 })).toEqual({ kind: "a", n: 1 });
    expect(union.safeParse({ kind: "a" }).success).toBe(false);
    expect(z.union([lazySchema(() => z.string()), z.number()]).parse(3)).toBe(3);
  });
});
