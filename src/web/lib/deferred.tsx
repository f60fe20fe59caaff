/**
 * A component from its own chunk, loaded when it first renders and shown once it arrives, without
 * Suspense: until then `fallback` renders in its place. React throttles every Suspense reveal to 300 ms
 * after the last fallback shown anywhere, so a Suspense boundary for the toaster or a tooltip would slow
 * down the first screen; this is a plain state update. A chunk that fails to load is thrown at the next
 * render, to the router's error boundary. ADR 0030.
 */
import { type ComponentType, type ReactNode, useEffect, useState } from "react";

export interface Deferred<P> {
  (props: P): ReactNode;
  /** Starts loading the chunk (once). */
  preload: () => Promise<void>;
}

/** A component's chunk, loaded once: what arrived (or why not), read at render. */
export interface ChunkedComponent<P> {
  /** Starts loading the chunk (once); settles when it arrived or failed. */
  preload: () => Promise<void>;
  /** The component, once the chunk is in. */
  readonly Loaded: ComponentType<P> | undefined;
  /** Why the chunk did not load (undefined while loading or after it arrived). */
  readonly failure: unknown;
}

export function chunkedComponent<P>(load: () => Promise<ComponentType<P>>): ChunkedComponent<P> {
  let loading: Promise<void> | undefined;
  const chunk = {
    Loaded: undefined as ComponentType<P> | undefined,
    failure: undefined as unknown,
    preload: () => {
      loading ??= load().then(
        (component) => {
          chunk.Loaded = component;
        },
        (error: unknown) => {
          chunk.failure = error;
        },
      );
      return loading;
    },
  };
  return chunk;
}

export function deferred<P extends object>(
  load: () => Promise<ComponentType<P>>,
  fallback: (props: P) => ReactNode = () => null,
): Deferred<P> {
  const chunk = chunkedComponent(load);
  const { preload } = chunk;

  // biome-ignore lint/correctness/noComponentHookFactories: made once per chunk at module level, as React.lazy does.
  function DeferredComponent(props: P) {
    const [, setSettled] = useState(false);
    useEffect(() => {
      if (chunk.Loaded || chunk.failure !== undefined) return;
      let mounted = true;
      void preload().then(() => {
        if (mounted) setSettled(true);
      });
      return () => {
        mounted = false;
      };
    }, []);
    if (chunk.failure !== undefined) throw chunk.failure;
    const { Loaded } = chunk;
    return Loaded ? <Loaded {...props} /> : fallback(props);
  }
  DeferredComponent.preload = preload;
  return DeferredComponent;
}
