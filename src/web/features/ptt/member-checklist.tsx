import { Link } from "@tanstack/react-router";
import { useMemo } from "react";
import { MemberPicker } from "@/components/member-picker";
import type { Extension } from "../../../shared/inventory";

/**
 * Existing extensions ('number - name', sorted numerically by the caller) to pick as a group's members:
 * the searchable picker (components/member-picker.tsx) over the extension list.
 */
export function MemberChecklist({
  extensions,
  value,
  onChange,
  error,
}: {
  /** undefined while the list loads. */
  extensions: Extension[] | undefined;
  value: string[];
  onChange: (members: string[]) => void;
  error?: string;
}) {
  const options = useMemo(
    () => extensions?.map((ext) => ({ value: ext.extension, label: `${ext.extension} - ${ext.name}` })),
    [extensions],
  );
  return (
    <MemberPicker
      legend="Members"
      options={options}
      value={value}
      onChange={onChange}
      error={error}
      searchLabel="Search extensions by number or name"
      empty={
        <p className="rounded-md border border-dashed p-3 text-muted-foreground text-sm">
          No extensions yet.{" "}
          <Link to="/extensions" className="text-primary underline-offset-4 hover:underline">
            Create extensions
          </Link>{" "}
          first.
        </p>
      }
    />
  );
}
