/**
 * API Settings: who may listen to call recordings and voicemail (viewers see a call's detail either way,
 * its audio only when allowed) and after how many days the PBX deletes call recordings (empty keeps them).
 */
import { useQuery } from "@tanstack/react-query";
import { LoaderCircle, Voicemail } from "lucide-react";
import { useEffect, useId } from "react";
import { Controller } from "react-hook-form";
import { useSchemaForm } from "@/components/form-kit";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { FormError, FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { toast } from "@/components/ui/use-toast";
import { errorText } from "@/lib/error-text";
import { type AudioSettings, audioSettingsSchema, RECORDING_RETENTION_MAX_DAYS } from "../../../shared/settings";
import { audioSettingsQuery, useUpdateAudioSettings } from "../audio-settings/api";

/** The retention input's text → the setting: empty keeps recordings; anything else is for the schema to judge. */
const retentionValue = (v: unknown) => (v === "" || v === null || v === undefined ? null : Number(v));

export function AudioSettingsCard() {
  const titleId = useId();
  const checkboxId = useId();
  const settings = useQuery(audioSettingsQuery());
  const { form, formError, showServerError, submit } = useSchemaForm(audioSettingsSchema, {
    viewersMayListen: false,
    recordingRetentionDays: null,
  });
  const loaded = settings.data;
  useEffect(() => {
    if (loaded) form.reset(loaded);
  }, [loaded, form]);
  const update = useUpdateAudioSettings({
    onSuccess: (saved: AudioSettings) =>
      toast({
        title: "Audio settings saved",
        description: `${saved.viewersMayListen ? "Viewers may listen" : "Only operators and administrators may listen"}; ${
          saved.recordingRetentionDays === null
            ? "recordings are kept"
            : `recordings older than ${saved.recordingRetentionDays} days are deleted`
        }`,
      }),
    onError: (err) => {
      const message = showServerError(err, ["viewersMayListen", "recordingRetentionDays"]);
      toast({
        variant: "destructive",
        title: "Failed to save the audio settings",
        description: message ?? errorText(err),
      });
    },
  });
  const errors = form.formState.errors;
  return (
    <Card role="region" aria-labelledby={titleId} className="gap-4">
      <CardHeader>
        <CardTitle id={titleId} className="flex items-center gap-2">
          <Voicemail className="size-4 text-muted-foreground" aria-hidden />
          Recordings and voicemail
        </CardTitle>
        <CardDescription>
          Every role sees a call's detail; operators and administrators always hear its recording and voicemail.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {settings.isError && <FormError message={`Could not load the audio settings: ${errorText(settings.error)}`} />}
        <form
          noValidate
          aria-label="Recordings and voicemail"
          className="grid gap-4"
          onSubmit={submit((values) => update.mutate(values))}
        >
          <div className="flex items-center gap-2">
            <Controller
              control={form.control}
              name="viewersMayListen"
              render={({ field }) => (
                <Checkbox
                  id={checkboxId}
                  checked={field.value === true}
                  onCheckedChange={(checked) => field.onChange(checked === true)}
                  onBlur={field.onBlur}
                />
              )}
            />
            <Label htmlFor={checkboxId}>Viewers may listen to recordings and voicemail</Label>
          </div>
          <FormField label="Delete recordings older than N days" error={errors.recordingRetentionDays?.message}>
            {(c) => (
              <div className="grid gap-1">
                <Input
                  {...c}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={RECORDING_RETENTION_MAX_DAYS}
                  placeholder="Keep them"
                  className="sm:w-40"
                  {...form.register("recordingRetentionDays", { setValueAs: retentionValue })}
                />
                <p className="text-muted-foreground text-xs">
                  Empty keeps every recording. The PBX deletes older ones from its monitor directory each night.
                </p>
              </div>
            )}
          </FormField>
          <FormError message={formError} />
          <div>
            <Button type="submit" disabled={update.isPending || !loaded}>
              {update.isPending && <LoaderCircle className="animate-spin" />}
              Save Audio Settings
            </Button>
          </div>
        </form>
      </CardContent>
    </Card>
  );
}
