/** The audit trail's object of a voicemail route: the message (or greeting) its path names, with its mailbox. */
export const namedByPath = (_app: unknown, params: Record<string, string>) => ({
  id: params.id ?? params.kind ?? params.mailbox ?? "",
  label: params.kind ? `${params.kind} greeting of mailbox ${params.mailbox}` : `mailbox ${params.mailbox}`,
});
