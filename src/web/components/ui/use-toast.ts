import { useEffect, useState } from "react";
import {
  reducer,
  TOAST_REMOVE_DELAY,
  type ToastAction,
  type ToasterToast,
  type ToastState,
  type ToastVariant,
} from "./toast-store";

export type ToastInput = Omit<ToasterToast, "id" | "open" | "onOpenChange">;

let count = 0;
const genId = () => {
  count = (count + 1) % Number.MAX_SAFE_INTEGER;
  return String(count);
};

const listeners = new Set<(state: ToastState) => void>();
let memoryState: ToastState = { toasts: [] };
const removeTimers = new Map<string, ReturnType<typeof setTimeout>>();

function scheduleRemoval(toastId: string) {
  if (removeTimers.has(toastId)) return;
  const timer = setTimeout(() => {
    removeTimers.delete(toastId);
    dispatch({ type: "REMOVE_TOAST", toastId });
  }, TOAST_REMOVE_DELAY);
  removeTimers.set(toastId, timer);
}

function dispatch(action: ToastAction) {
  if (action.type === "DISMISS_TOAST") {
    const ids = action.toastId ? [action.toastId] : memoryState.toasts.map((t) => t.id);
    for (const id of ids) scheduleRemoval(id);
  }
  memoryState = reducer(memoryState, action);
  for (const listener of listeners) listener(memoryState);
}

export function dismissToast(toastId?: string) {
  dispatch({ type: "DISMISS_TOAST", toastId });
}

/** Shows a toast (replacing the current one: the limit is 1). */
export function toast(props: ToastInput & { variant?: ToastVariant }) {
  const id = genId();
  const dismiss = () => dismissToast(id);
  dispatch({
    type: "ADD_TOAST",
    toast: { ...props, id, open: true, onOpenChange: (open) => !open && dismiss() },
  });
  return {
    id,
    dismiss,
    update: (next: ToastInput) => dispatch({ type: "UPDATE_TOAST", toast: { ...next, id } }),
  };
}

export function useToast() {
  const [state, setState] = useState(memoryState);
  useEffect(() => {
    listeners.add(setState);
    setState(memoryState);
    return () => {
      listeners.delete(setState);
    };
  }, []);
  return { ...state, toast, dismiss: dismissToast };
}
