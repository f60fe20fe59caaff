import { LogOut } from "lucide-react";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/use-toast";
import { useSignOut } from "./api";

export function SignOutButton() {
  const signOut = useSignOut({
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
