import { useMutation, useQueryClient } from "@tanstack/react-query";
import { LogOut } from "lucide-react";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";
import { sendJson } from "@/lib/api";
import { showSignedOut } from "@/lib/session";

export function SignOutButton() {
  const client = useQueryClient();
  const signOut = useMutation({
    mutationFn: () => sendJson<unknown>("POST", "/api/auth/logout"),
    onSuccess: () => showSignedOut(client),
    onError: (err) =>
      toast({
        variant: "destructive",
        title: "Sign out failed",
        description: err instanceof Error ? err.message : String(err),
      }),
  });

  return (
    <Button variant="ghost" size="sm" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
      <LogOut />
      Sign out
    </Button>
  );
}
