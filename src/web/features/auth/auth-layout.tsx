import { AudioLines } from "lucide-react";
import { type ReactNode, useEffect } from "react";
import { ThemeToggle } from "@/components/layout/theme-toggle";
import { Card, CardContent, CardDescription, CardHeader } from "@/components/ui/card";

/** Centred card used by the sign-in and first-run pages. */
export function AuthLayout({
  title,
  description,
  children,
}: {
  title: string;
  description: string;
  children: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · PBX Console`;
  }, [title]);

  return (
    <div className="relative flex min-h-svh flex-col items-center justify-center gap-6 bg-muted/40 p-6 md:p-10">
      <div className="absolute top-4 right-4">
        <ThemeToggle />
      </div>
      <div className="flex items-center gap-2.5">
        <div className="flex size-9 items-center justify-center rounded-lg bg-primary text-primary-foreground">
          <AudioLines className="size-5" />
        </div>
        <div className="leading-tight">
          <div className="font-semibold">PBX Console</div>
          <div className="text-muted-foreground text-xs">Automation</div>
        </div>
      </div>
      <Card className="w-full max-w-sm">
        <CardHeader>
          <h1 className="font-semibold text-xl leading-none tracking-tight">{title}</h1>
          <CardDescription>{description}</CardDescription>
        </CardHeader>
        <CardContent>{children}</CardContent>
      </Card>
    </div>
  );
}
