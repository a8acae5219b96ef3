import { describeJsonType } from '@cryptocheckout/core';
import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';

/** A request part that failed its schema; carries the dotted field path for the error envelope. */
export class RequestValidationError extends Error {
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.name = 'RequestValidationError';
    this.field = field;
  }
}

/**
 * Fastify validator that runs the core zod schemas and reports the first problem with its field,
 * in words a developer can act on ("customer.wallet_address is required").
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    // reportInput keeps the offending value on each issue, so a wrong type is told from a missing field.
    const result = schema.safeParse(data, { reportInput: true });
    if (result.success) return { value: result.data };
    const issue = result.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    return { error: new RequestValidationError(field, describeIssue(field, issue)) };
  };

function describeIssue(field: string, issue: z.core.$ZodIssue): string {
  const label = field || 'body';
  const input = (issue as { input?: unknown }).input;
  const message = issue.message.replace(/\.$/, '');
  // Messages the core schemas word themselves already name the field (and tell absent from wrong).
  if (field && message.startsWith(field)) return `${message}.`;
  if (issue.code === 'invalid_type') {
    if (input === undefined) return `${label} is required.`;
    return `${label} must be ${withArticle(issue.expected)}, got ${describeJsonType(input)}.`;
  }
  if (issue.code === 'invalid_value' && issue.values.length > 0) {
    const options = issue.values.map((value) => JSON.stringify(value)).join(', ');
    if (input === undefined) return `${label} is required, one of ${options}.`;
    return `${label} must be one of ${options}, got ${typeof input === 'string' ? JSON.stringify(input.slice(0, 32)) : describeJsonType(input)}.`;
  }
  return `${label}: ${message}.`;
}

function withArticle(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
