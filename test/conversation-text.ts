/** The user's words as the model got them, without the line about the present before them (conversation.ts; checked in conversation.test.ts). */
export const withoutNow = (text: string): string => text.replace(/^\[It is now [^\]]*\]\n/, '');
