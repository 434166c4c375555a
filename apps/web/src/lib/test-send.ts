/** A test send's outcome in words, as a push device's or a chat connection's row shows it: "Sent: …", "Refused: …". */
export const testOutcomeText = { sent: 'Sent', retry: 'Try again later', gone: 'Gone', refused: 'Refused' } as const;
