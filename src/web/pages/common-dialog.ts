/**
 * The dialog and input parts that the sign-in pages, every screen group and the on-demand forms
 * (ADR 0046) all use. Bun gives a module the chunk of the set of entries that reach it, and these are
 * reached by all of those but the shell: the shell re-exports `DIALOG_MODULES` too, so they join the
 * chunk it shares with the others (react-remove-scroll and the like) instead of a file of their own.
 * Every session loads the shell and at least one of the others, so this costs no extra bytes.
 * `deferred-dialog` is also in `common.ts`'s list on purpose: taken out of either, it (and more) splits
 * into files of their own (checked with the chunk table).
 */
import * as deferredDialog from "@/components/deferred-dialog";
import * as badge from "@/components/ui/badge";
import * as dialog from "@/components/ui/dialog";
import * as formField from "@/components/ui/form-field";
import * as input from "@/components/ui/input";
import * as label from "@/components/ui/label";

export const DIALOG_MODULES = [deferredDialog, badge, dialog, formField, input, label];
