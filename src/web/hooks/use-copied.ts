import { useCallback, useEffect, useRef, useState } from "react";
import { COPIED_INDICATOR_MS } from "@/lib/constants";

/** A "Copied" flag that turns itself off after 2 s (COPIED_INDICATOR_MS). */
export function useCopiedFlag(): [boolean, () => void] {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const flash = useCallback(() => {
    clearTimeout(timer.current);
    setCopied(true);
    timer.current = setTimeout(() => setCopied(false), COPIED_INDICATOR_MS);
  }, []);
  return [copied, flash];
}
