import { useQuery } from "@tanstack/react-query";
import { dialerStatusQuery } from "@/features/extensions/api";
import { DialerNotConfigured } from "@/features/extensions/push-button";

/** On the Softphone screen: a quiet note while the web dialer push is not set up. */
export function DialerHint() {
  const status = useQuery(dialerStatusQuery());
  return status.data && !status.data.configured ? <DialerNotConfigured /> : null;
}
