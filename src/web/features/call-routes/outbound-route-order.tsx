/**
 * Reordering the outbound routes (ADR 0040): Move up / Move down buttons, Alt+Arrow keys on a card, and
 * dragging a card by its handle. Each move sends the whole new order; the list shows it at once and
 * goes back if the server refuses. A polite live region says where the route went.
 */
import { type DragEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";
import { toast } from "@/components/ui/use-toast";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import type { OutboundRoute } from "../../../shared/inventory";
import { useReorderOutboundRoutes } from "./api";

/** What one card needs to show its place and move. */
export interface RouteOrderHandles {
  position: number;
  count: number;
  moveUp?: () => void;
  moveDown?: () => void;
  onKeyDown: (e: KeyboardEvent) => void;
  /** Props of the card's list item: a drop target, draggable by its handle. */
  item: {
    draggable: boolean;
    onDragStart: (e: DragEvent) => void;
    onDragEnd: () => void;
    onDragOver: (e: DragEvent) => void;
    onDrop: (e: DragEvent) => void;
    "data-drop-target"?: "true";
  };
}

/** The button of a card to focus after it moved (React moves the DOM node, which can lose focus). */
const focusMoveButton = (id: number, which: "up" | "down") => {
  const button = document.querySelector<HTMLButtonElement>(`[data-route-move="${id}-${which}"]`);
  const other = document.querySelector<HTMLButtonElement>(
    `[data-route-move="${id}-${which === "up" ? "down" : "up"}"]`,
  );
  (button && !button.disabled ? button : other)?.focus();
};

export function useOutboundRouteOrder(routes: readonly OutboundRoute[] | undefined) {
  const [announcement, setAnnouncement] = useState("");
  const [dragging, setDragging] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);
  const reorder = useReorderOutboundRoutes({
    onError: (err) => {
      setAnnouncement("The order was not saved");
      toast({ variant: "destructive", title: "Failed to reorder outbound routes", description: errorText(err) });
    },
  });
  const list = routes ?? [];
  // A viewer sees the positions; only an operator or administrator moves routes.
  const canMove = useCan("operator");
  // Focus goes back to the moved card once the list shows its new place (its Move up may now be disabled).
  const pendingFocus = useRef<{ id: number; which: "up" | "down" } | null>(null);
  useEffect(() => {
    const pending = pendingFocus.current;
    if (!pending || !routes) return;
    pendingFocus.current = null;
    focusMoveButton(pending.id, pending.which);
  }, [routes]);
  const refocus = (id: number, which: "up" | "down") => {
    pendingFocus.current = { id, which };
  };

  /** Moves `id` to index `to` and saves the whole order. */
  const moveTo = (id: number, to: number) => {
    const ids = list.map((r) => r.id);
    const from = ids.indexOf(id);
    if (from < 0 || to < 0 || to >= ids.length || from === to) return;
    ids.splice(from, 1);
    ids.splice(to, 0, id);
    const name = list[from]?.name ?? "Route";
    setAnnouncement(`${name} moved to position ${to + 1} of ${ids.length}`);
    reorder.mutate(ids);
  };

  const handles = (route: OutboundRoute, index: number): RouteOrderHandles => {
    const count = list.length;
    const up = canMove && index > 0 ? () => moveTo(route.id, index - 1) : undefined;
    const down = canMove && index < count - 1 ? () => moveTo(route.id, index + 1) : undefined;
    return {
      position: index + 1,
      count,
      moveUp:
        up &&
        (() => {
          up();
          focusMoveButton(route.id, "up");
        }),
      moveDown:
        down &&
        (() => {
          down();
          focusMoveButton(route.id, "down");
        }),
      onKeyDown: (e) => {
        if (!e.altKey || (e.key !== "ArrowUp" && e.key !== "ArrowDown")) return;
        e.preventDefault();
        const go = e.key === "ArrowUp" ? up : down;
        if (!go) return;
        refocus(route.id, e.key === "ArrowUp" ? "up" : "down");
        go();
      },
      item: {
        draggable: canMove && count > 1,
        onDragStart: (e) => {
          setDragging(route.id);
          e.dataTransfer.effectAllowed = "move";
          e.dataTransfer.setData("text/plain", route.name);
        },
        onDragEnd: () => {
          setDragging(null);
          setOver(null);
        },
        onDragOver: (e) => {
          if (dragging === null) return;
          e.preventDefault();
          e.dataTransfer.dropEffect = "move";
          if (over !== route.id) setOver(route.id);
        },
        onDrop: (e) => {
          e.preventDefault();
          if (dragging !== null && dragging !== route.id) moveTo(dragging, index);
          setDragging(null);
          setOver(null);
        },
        ...(over === route.id && dragging !== route.id ? { "data-drop-target": "true" as const } : {}),
      },
    };
  };

  const status = (
    <p className="sr-only" role="status" aria-live="polite">
      {announcement}
    </p>
  );
  return { handles, status, saving: reorder.isPending };
}
