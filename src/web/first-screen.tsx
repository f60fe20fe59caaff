/**
 * The server's render of a screen's first HTML (ADR 0047): the same route tree and components as in the
 * browser, over a memory history and a query cache holding the session's answers (read by the server through
 * its own API, as the browser would get them). Imported by the server only, on first use
 * (server/transport/prerender.ts).
 *
 * The HTML is a picture, not a hydration root: the browser shows it inert until the app in `#root` shows the
 * screen (lib/prerender.ts). So its ids and test ids are taken out (they would repeat the app's), and a
 * render that fell back anywhere (a Suspense boundary that errored: `<!--$!-->`) gives no picture at all.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createMemoryHistory, createRouter, RouterProvider } from "@tanstack/react-router";
import { renderToString } from "react-dom/server";
import type { MeResponse } from "../shared/auth";
import { setPrerenderCookie } from "./lib/prerender";
import { queryKeys } from "./lib/query-keys";
import { routeTree } from "./router";

export interface FirstScreenInput {
  /** The screen's path (`/extensions`). */
  path: string;
  /** What GET /api/auth/me answers this session. */
  me: MeResponse;
  /** The screen's first data by URL (its query key is `[url]`), as the API answers it. */
  answers: Readonly<Record<string, unknown>>;
  /** The request's Cookie header: the sidebar's state, the theme, the table's hidden columns. */
  cookie: string;
}

/** Attributes that name or point at ids, and the test ids: a second copy of the screen must not repeat them. */
const ID_ATTRIBUTES = / (?:id|for|aria-(?:labelledby|describedby|controls|owns|activedescendant)|data-testid)="[^"]*"/g;

const notFetched = () => Promise.reject(new Error("not fetched on the server"));

/** The screen's HTML, or null when it did not render whole. Never throws. */
export async function renderFirstScreen({ path, me, answers, cookie }: FirstScreenInput): Promise<string | null> {
  try {
    // Nothing fetches here: what the answers do not hold renders as the screen's loading state.
    const client = new QueryClient({
      defaultOptions: {
        queries: { queryFn: notFetched, staleTime: Number.POSITIVE_INFINITY, retry: false, enabled: false },
      },
    });
    client.setQueryData(queryKeys.me, me);
    for (const [url, data] of Object.entries(answers)) client.setQueryData([url], data);
    const router = createRouter({ routeTree, history: createMemoryHistory({ initialEntries: [path] }) });
    await router.load(); // the screen's lazy component; the loaders start nothing on the server
    setPrerenderCookie(cookie);
    let html: string;
    try {
      html = renderToString(
        <QueryClientProvider client={client}>
          <RouterProvider router={router} />
        </QueryClientProvider>,
      );
    } finally {
      setPrerenderCookie("");
    }
    if (html.includes("<!--$!-->")) return null;
    return html.replace(ID_ATTRIBUTES, "");
  } catch {
    return null;
  }
}
