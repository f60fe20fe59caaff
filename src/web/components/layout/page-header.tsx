import { type ReactNode, useEffect } from "react";

/** A screen's title (the page's only h1) and one-line subtitle; also sets the tab title. */
export function PageHeader({ title, subtitle, children }: { title: string; subtitle: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · PBX Console`;
  }, [title]);

  return (
    <div className="flex flex-col gap-1">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-semibold tracking-tight md:text-3xl">{title}</h1>
        {children}
      </div>
      <p className="text-muted-foreground">{subtitle}</p>
    </div>
  );
}
