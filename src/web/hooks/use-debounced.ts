import { useEffect, useState } from "react";

/** `value`, once it has not changed for `ms` (typed filters wait for a pause before they are queried). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
