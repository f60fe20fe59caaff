/**
 * Node's crypto and zlib modules, loaded at their first use instead of at start. Each brings Node's stream
 * internals with it, which a compiled binary that already uses node:fs would otherwise load at every start,
 * and the start needs none of them (ADR 0034 addendum 2026-11-28 has the figures). The server
 * takes them from here (node:net is the AMI client's own: clients/ami.ts); test/shared/layers.test.ts says so.
 * `require` is synchronous in Bun (ESM included) and caches the module, so callers stay synchronous.
 */
export const nodeCrypto = () => require("node:crypto") as typeof import("node:crypto");
export const nodeZlib = () => require("node:zlib") as typeof import("node:zlib");
