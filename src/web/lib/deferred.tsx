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

export function deferred<P extends object>(
  load: () => Promise<ComponentType<P>>,
  fallback: (props: P) => ReactNode = () => null,
): Deferred<P> {
  let Loaded: ComponentType<P> | undefined;
  let failure: unknown;
  let loading: Promise<void> | undefined;
  const preload = () => {
    loading ??= load().then(
      (component) => {
        Loaded = component;
      },
      (error: unknown) => {
        failure = error;
      },
    );
    return loading;
  };

  // biome-ignore lint/correctness/noComponentHookFactories: made once per chunk at module level, as React.lazy does.
  function DeferredComponent(props: P) {
    const [, setSettled] = useState(false);
    useEffect(() => {
      if (Loaded || failure !== undefined) return;
      let mounted = true;
      void preload().then(() => {
        if (mounted) setSettled(true);
      });
      return () => {
        mounted = false;
      };
    }, []);
    if (failure !== undefined) throw failure;
    return Loaded ? <Loaded {...props} /> : fallback(props);
  }
  DeferredComponent.preload = preload;
  return DeferredComponent;
}
