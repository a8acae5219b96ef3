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
    const result = schema.safeParse(data);
    if (result.success) return { value: result.data };
    const issue = result.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    return { error: new RequestValidationError(field, describeIssue(field, issue)) };
  };

function describeIssue(field: string, issue: z.core.$ZodIssue): string {
  const label = field || 'body';
  if (issue.code === 'invalid_type' && (issue as { input?: unknown }).input === undefined) {
    return `${label} is required.`;
  }
  const message = issue.message.replace(/\.$/, '');
  if (field && message.startsWith(field)) return `${message}.`;
  if (issue.code === 'invalid_type')
    return `${label} must be ${issue.expected === 'object' ? 'an object' : `a ${issue.expected}`}.`;
  return `${label}: ${message}.`;
}
