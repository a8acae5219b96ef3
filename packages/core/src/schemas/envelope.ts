import { z } from 'zod';

/** Error codes of the error envelope, each with its HTTP status (docs/api.md). */
export const ERROR_CODES = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  request_header_fields_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** `{"status":"error","error":{code, message, field?}}`. */
export const errorEnvelopeSchema = z.object({
  status: z.literal('error'),
  error: z.object({
    code: z.string().min(1),
    message: z.string(),
    field: z.string().optional(),
    /** With `rate_limited`: seconds until the request can succeed (also the `Retry-After` header). */
    retry_after: z.number().int().positive().optional(),
  }),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelopeSchema>;

/** `{"status":"success","data":<data>}` for a given data schema (docs/api.md, Envelope). */
export function successEnvelopeSchema<Data extends z.ZodType>(data: Data) {
  return z.object({ status: z.literal('success'), data });
}
