import { ServiceProblem } from './service-problem.js';

/** Tries at a write that lost to a concurrent one before the caller is told to try again. */
export const MAX_WRITE_ATTEMPTS = 40;

/** A short random pause after a lost write, growing with the attempt, so writers stop colliding. */
export function contentionPause(attempt: number): Promise<void> {
  if (attempt < 2) return Promise.resolve();
  const ms = Math.random() * Math.min(50, attempt * 3);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The 503 for a write that kept losing: the caller may simply send the request again. */
export function contentionProblem(transactionCode: string): ServiceProblem {
  return new ServiceProblem(
    'unavailable',
    `Transaction ${transactionCode} is being updated by many requests at once; try again in a moment.`,
  );
}
