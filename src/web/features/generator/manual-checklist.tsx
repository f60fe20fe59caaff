import { ClipboardCheck } from "lucide-react";
import { type ReactNode, useId, useState } from "react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";

const Cmd = ({ children }: { children: ReactNode }) => (
  <code className="rounded bg-muted px-1.5 py-0.5 font-mono text-xs">{children}</code>
);

/** The console runs on the PBX host, so the host it is served from is the one to SSH to. */
function pbxHost(): string {
  return window.location.hostname || "<pbx-host>";
}

function items(host: string): { key: string; text: ReactNode }[] {
  return [
    { key: "get", text: <>Download the SQL script or copy it to the clipboard (buttons above).</> },
    {
      key: "ssh",
      text: (
        <>
          SSH to the server: <Cmd>ssh root@{host}</Cmd>
        </>
      ),
    },
    {
      key: "mysql",
      text: (
        <>
          Open the MySQL client on the FreePBX database: <Cmd>mysql asterisk</Cmd>
        </>
      ),
    },
    { key: "paste", text: <>Paste the SQL script and check that it ends with COMMIT without errors.</> },
    {
      key: "exit",
      text: (
        <>
          Leave the MySQL client: <Cmd>exit</Cmd>
        </>
      ),
    },
    {
      key: "reload",
      text: (
        <>
          Apply the configuration: <Cmd>fwconsole reload</Cmd>
        </>
      ),
    },
    {
      key: "verify",
      text: (
        <>
          Verify the trunks, extensions, routes and page groups in the FreePBX web GUI at <Cmd>http://{host}/admin</Cmd>
        </>
      ),
    },
  ];
}

/** The fixed manual-deployment checklist; ticks are only a reading aid, kept in memory. */
export function ManualChecklist() {
  const id = useId();
  const [done, setDone] = useState<Record<string, boolean>>({});
  const list = items(pbxHost());
  return (
    <Card role="region" aria-labelledby={`${id}-title`} className="gap-4">
      <CardHeader>
        <CardTitle id={`${id}-title`} className="flex items-center gap-2">
          <ClipboardCheck className="size-4 text-muted-foreground" aria-hidden />
          Manual Deployment Checklist
        </CardTitle>
        <CardDescription>Apply the script by hand when the console cannot reach the PBX itself.</CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="grid gap-3" aria-label="Manual deployment checklist">
          {list.map((item, i) => (
            <li key={item.key} className="flex items-start gap-3">
              <Checkbox
                id={`${id}-${item.key}`}
                checked={done[item.key] ?? false}
                onCheckedChange={(v) => setDone((d) => ({ ...d, [item.key]: v === true }))}
                className="mt-0.5"
              />
              <Label
                htmlFor={`${id}-${item.key}`}
                className={`block font-normal leading-relaxed ${done[item.key] ? "text-muted-foreground line-through" : ""}`}
              >
                <span className="font-medium tabular-nums">{i + 1}.</span> {item.text}
              </Label>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}
