import { ERROR_CODES, type ErrorCode } from '@cryptocheckout/core';

/**
 * An error the service reports to the caller in the error envelope, with the HTTP status that
 * belongs to its code (docs/api.md). Anything else thrown becomes a logged 500.
 */
export class ServiceProblem extends Error {
  readonly code: ErrorCode;
  readonly httpStatus: number;
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string) {
    super(message);
    this.name = 'ServiceProblem';
    this.code = code;
    this.httpStatus = ERROR_CODES[code];
    this.field = field;
  }
}
