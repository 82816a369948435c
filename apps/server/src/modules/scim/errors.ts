/**
 * SCIM errors (RFC 7644 §3.12): the status repeated as a string, a `scimType` for 400s (and 409's
 * `uniqueness`), a `detail` in words. Thrown anywhere below the SCIM routes, sent by their handler.
 */
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive';

export class ScimError extends Error {
  readonly status: number;
  readonly scimType: ScimType | undefined;
  constructor(status: number, detail: string, scimType?: ScimType) {
    super(detail);
    this.name = 'ScimError';
    this.status = status;
    this.scimType = scimType;
  }
}

export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, detail, scimType);
export const notFound = (detail: string) => new ScimError(404, detail);

export function errorBody(err: ScimError) {
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(err.status),
    ...(err.scimType ? { scimType: err.scimType } : {}),
    detail: err.message,
  };
}
