/** How long a wait for an event lasts before it fails; set once for every suite in vitest.shared.ts. */
export const EVENT_DEADLINE_MS = Number(process.env.CRYPTOCHECKOUT_TEST_DEADLINE_MS);
if (!(EVENT_DEADLINE_MS > 0)) {
  throw new Error(
    "CRYPTOCHECKOUT_TEST_DEADLINE_MS is not set: run the tests with the repository's vitest config (npm test).",
  );
}
