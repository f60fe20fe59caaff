/**
 * Shared schemas are built at first use (ADR 0048). Building every zod schema of src/shared at import is a
 * large part of the console's cold start, and a screen's bundle pays the same for every schema it imports;
 * a process needs a handful of them at first. `lazySchema(() => z.object({ … }))` answers a stand-in of
 * exactly the schema's type that builds it on its first use (a parse, `.shape`, `.extend()`, being
 * checked inside another schema) and from then on is that schema.
 *
 * It imports nothing (zod included): the web shell imports it through ws-events.ts and stays without zod.
 */
let built = 0;

/** How many lazy schemas have been built in this process (a test checks that importing builds none). */
export const lazySchemasBuilt = () => built;

/**
 * A stand-in for the schema `build` makes. Its prototype is a trap: the first read (a parse, `.shape`,
 * `instanceof`, `in`, zod checking it inside another schema) builds the schema and makes the stand-in an
 * instance of it, the way zod's own `clone()` does (same constructor and definition, the built schema as
 * its parent). From then on it is a plain zod schema with its own identity: nothing is forwarded, so
 * parsing costs what it did, and whatever zod keys by schema (JSON Schema's seen list, the registry, cycle
 * checks) finds the object it was given.
 */
export function lazySchema<T extends object>(build: () => T): T {
  const standIn = Object.create(
    new Proxy(Object.create(null) as object, {
      get: (_, key) => Reflect.get(materialize(), key, standIn),
      has: (_, key) => Reflect.has(materialize(), key),
      set: (_, key, value) => Reflect.set(materialize(), key, value, standIn),
      getOwnPropertyDescriptor: (_, key) => {
        const proto = Object.getPrototypeOf(materialize()) as object;
        return Reflect.getOwnPropertyDescriptor(proto, key);
      },
      ownKeys: () => Reflect.ownKeys(Object.getPrototypeOf(materialize()) as object),
    }),
  ) as T;
  let building = false;
  function materialize(): T {
    // Called only while the stand-in's prototype is still this trap: once built, lookups never reach it.
    if (building) throw new Error("lazySchema: the schema reads itself while being built (use z.lazy for recursion)");
    building = true;
    let schema: T & { _zod: { constr: (this: T, def: unknown) => T; def: unknown; parent?: T } };
    try {
      schema = build() as typeof schema;
    } finally {
      building = false;
    }
    Object.setPrototypeOf(standIn, Object.getPrototypeOf(schema));
    schema._zod.constr.call(standIn, schema._zod.def);
    (standIn as typeof schema)._zod.parent = schema;
    built++;
    return standIn;
  }
  return standIn;
}
