// The toast reducer (src/web/components/ui/toast-store.ts): plain state, no DOM.
import { describe, expect, test } from "bun:test";
import {
  reducer,
  TOAST_DURATION_MS,
  TOAST_LIMIT,
  TOAST_REMOVE_DELAY,
  type ToasterToast,
} from "../../src/web/components/ui/toast-store";

const make = (id: string, extra: Partial<ToasterToast> = {}): ToasterToast => ({
  id,
  title: `toast ${id}`,
  open: true,
  onOpenChange: () => {},
  ...extra,
});

describe("toast reducer", () => {
  test("constants match docs/product/constants.md#toasts", () => {
    expect(TOAST_LIMIT).toBe(1);
    expect(TOAST_REMOVE_DELAY).toBe(1_000_000);
    expect(TOAST_DURATION_MS).toBe(5000);
  });

  test("keeps at most one toast, the newest", () => {
    let state = reducer({ toasts: [] }, { type: "ADD_TOAST", toast: make("1") });
    state = reducer(state, { type: "ADD_TOAST", toast: make("2", { variant: "destructive" }) });
    expect(state.toasts.map((t) => t.id)).toEqual(["2"]);
    expect(state.toasts[0]?.variant).toBe("destructive");
  });

  test("updates a toast by id", () => {
    const state = reducer({ toasts: [make("1")] }, { type: "UPDATE_TOAST", toast: { id: "1", title: "new" } });
    expect(state.toasts[0]?.title).toBe("new");
    expect(state.toasts[0]?.open).toBe(true);
  });

  test("dismiss closes one toast or all of them without removing them", () => {
    const one = reducer({ toasts: [make("1"), make("2")] }, { type: "DISMISS_TOAST", toastId: "2" });
    expect(one.toasts.map((t) => t.open)).toEqual([true, false]);
    const all = reducer({ toasts: [make("1"), make("2")] }, { type: "DISMISS_TOAST" });
    expect(all.toasts.map((t) => t.open)).toEqual([false, false]);
  });

  test("remove deletes one toast or all of them", () => {
    expect(reducer({ toasts: [make("1"), make("2")] }, { type: "REMOVE_TOAST", toastId: "1" }).toasts).toHaveLength(1);
    expect(reducer({ toasts: [make("1"), make("2")] }, { type: "REMOVE_TOAST" }).toasts).toHaveLength(0);
  });
});
