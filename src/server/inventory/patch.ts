/**
 * Edits (PATCH) of the console's PBX objects: the fields a request gives over the stored record, which
 * the entity's create schema then validates as a whole, so an edit obeys every rule a create does.
 */

/** `current` with every field `patch` gives (a field left out, or undefined, keeps its stored value). */
export function mergePatch<C extends object, P extends object>(current: C, patch: P): C & Partial<P> {
  const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  return { ...current, ...given } as C & Partial<P>;
}
