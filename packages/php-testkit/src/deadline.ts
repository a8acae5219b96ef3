/** How long a wait for an event lasts before it fails; set once for every suite in vitest.shared.ts. */
export const EVENT_DEADLINE_MS = Number(process.env.CRYPTOCHECKOUT_TEST_DEADLINE_MS);
