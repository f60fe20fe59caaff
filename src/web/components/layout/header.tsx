import { useRouterState } from "@tanstack/react-router";
import { CircleUser } from "lucide-react";
import { SignOutButton } from "@/features/auth/sign-out-button";
import { navItemFor } from "@/lib/nav";
import { Separator } from "../ui/separator";
import { SidebarTrigger } from "../ui/sidebar";
import { ThemeToggle } from "./theme-toggle";

export function Header({ username }: { username: string }) {
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  const current = navItemFor(pathname);

  return (
    <header className="sticky top-0 z-20 flex h-14 shrink-0 items-center gap-2 border-b bg-background/80 px-3 backdrop-blur supports-[backdrop-filter]:bg-background/60 md:px-4">
      <SidebarTrigger className="-ml-1" />
      <Separator orientation="vertical" className="mr-1 data-[orientation=vertical]:h-4" />
      <nav aria-label="Breadcrumb" className="flex min-w-0 items-center gap-1.5 text-sm">
        <span className="hidden text-muted-foreground sm:inline">PBX Console</span>
        <span className="hidden text-muted-foreground/60 sm:inline">/</span>
        <span className="truncate font-medium">{current?.title ?? "Page Not Found"}</span>
      </nav>
      <div className="ml-auto flex items-center gap-1">
        <span className="mr-2 hidden items-center gap-1.5 text-muted-foreground text-sm md:flex">
          <CircleUser className="size-4" />
          <span data-testid="signed-in-user">{username}</span>
        </span>
        <ThemeToggle />
        <Separator orientation="vertical" className="mx-1 data-[orientation=vertical]:h-4" />
        <SignOutButton />
      </div>
    </header>
  );
}
