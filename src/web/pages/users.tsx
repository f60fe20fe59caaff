import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { SelectField } from "@/components/form-fields";
import { PageHeader } from "@/components/layout/page-header";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent } from "@/components/ui/card";
import { FormError } from "@/components/ui/form-field";
import { toast } from "@/components/ui/use-toast";
import { useDeleteUser, usersQuery, useUpdateUser } from "@/features/users/api";
import { SecurityCard } from "@/features/users/security-card";
import { AddUserDialog, ResetPasswordDialog, ROLE_OPTIONS } from "@/features/users/users-dialogs";
import { useCan } from "@/hooks/use-role";
import { errorText } from "@/lib/error-text";
import { afterConfirm, deleteToasts, runningFor } from "@/lib/mutations";
import type { ConsoleUser, Role } from "../../shared/users";

export function UsersPage() {
  const isAdmin = useCan("admin");
  const users = useQuery({ ...usersQuery(), enabled: isAdmin });
  const [resetting, setResetting] = useState<ConsoleUser | null>(null);
  const update = useUpdateUser({
    onSuccess: () => toast({ title: "User updated" }),
    onError: (err) => toast({ variant: "destructive", title: "Failed to update user", description: errorText(err) }),
  });
  const remove = useDeleteUser(deleteToasts("User removed", "Failed to remove user"));

  if (!isAdmin) {
    return (
      <>
        <PageHeader title="Users" subtitle="Console accounts and their roles" />
        <FormError message="Only administrators manage users." />
      </>
    );
  }

  return (
    <>
      <PageHeader title="Users" subtitle="Console accounts and their roles">
        <div className="ml-auto">
          <AddUserDialog />
        </div>
      </PageHeader>
      {users.isError && <FormError message={`Could not load the users: ${errorText(users.error)}`} />}
      <Card>
        <CardContent>
          <ul className="grid gap-2" aria-label="Users">
            {users.data?.map((u) => (
              <li
                key={u.id}
                className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded-md border p-3 text-sm"
                aria-label={u.username}
              >
                <span className="min-w-32 font-medium">
                  {u.username}
                  {u.current && <span className="text-muted-foreground"> (you)</span>}
                </span>
                <Badge variant={u.disabled ? "secondary" : "success"}>{u.disabled ? "Disabled" : "Active"}</Badge>
                <SelectField
                  label="Role"
                  className="w-44"
                  value={u.role}
                  options={ROLE_OPTIONS}
                  onValueChange={(role) => update.mutate({ id: u.id, patch: { role: role as Role } })}
                />
                <div className="ml-auto flex flex-wrap gap-2">
                  <Button
                    type="button"
                    variant="outline"
                    size="sm"
                    disabled={update.isPending && update.variables?.id === u.id}
                    onClick={() => update.mutate({ id: u.id, patch: { disabled: !u.disabled } })}
                  >
                    {u.disabled ? "Enable" : "Disable"}
                  </Button>
                  <Button type="button" variant="outline" size="sm" onClick={() => setResetting(u)}>
                    Reset Password
                  </Button>
                  <Button
                    type="button"
                    variant="outline"
                    size="sm"
                    className="text-destructive hover:text-destructive"
                    disabled={runningFor(remove, u.id)}
                    aria-label={`Delete ${u.username}`}
                    onClick={() =>
                      afterConfirm(`Delete the user "${u.username}"? Their sessions end at once.`, () =>
                        remove.mutate(u.id),
                      )
                    }
                  >
                    Delete
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        </CardContent>
      </Card>
      <SecurityCard />
      <ResetPasswordDialog user={resetting} onClose={() => setResetting(null)} />
    </>
  );
}
