import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Checks requests an adapter sent against a vendor's own API description (OpenAPI excerpts kept in
 * this folder, dated, with their source): the operation exists (method and path, `.json` suffix
 * optional as Salesloft serves both), query parameter names are documented (`ids[]`, `filter[id]`
 * read as `ids`, `filter`), and every key of the JSON body is a documented property, recursively
 * through `$ref`s, arrays and objects (formData parameters count as the body's properties).
 */

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  required?: string[];
};
type Parameter = { name: string; in: string };
type Operation = {
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};
export type Spec = {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};
export type SentRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  /** The request's headers as sent (recordingProxy fills them). */
  headers?: Record<string, string | string[] | undefined>;
};

const here = path.dirname(fileURLToPath(import.meta.url));
export const loadSpec = (file: string): Spec => JSON.parse(readFileSync(path.join(here, file), 'utf8')) as Spec;

function basePath(spec: Spec): string {
  const url = spec.servers?.[0]?.url ?? '';
  try {
    return new URL(url).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** The documented operation for a request, with its path template; null when there is none. */
export function operationOf(spec: Spec, req: { method: string; path: string }) {
  const rel = req.path.slice(basePath(spec).length).replace(/\.json$/, '');
  for (const [template, methods] of Object.entries(spec.paths)) {
    const pattern = new RegExp(
      `^${template.replace(/\.json$/, '').replace(/\{[^}]+\}/g, '[^/]+').replace(/\//g, '\\/')}$`,
    );
    const op = methods[req.method.toLowerCase()];
    if (pattern.test(rel) && op) return { template, op };
  }
  return null;
}

function resolve(spec: Spec, schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let i = 0; s?.$ref && i < 20; i++) s = spec.components?.schemas?.[s.$ref.split('/').pop()!];
  return s;
}

/** Problems of `value` against `schema`: keys that are not documented properties, at any depth. */
export function undocumentedKeys(spec: Spec, schema: Schema | undefined, value: unknown, at = 'body'): string[] {
  const s = resolve(spec, schema);
  if (!s || value === null || value === undefined) return [];
  const variants = [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])];
  if (variants.length && !s.properties) {
    // A value fits when one variant (or, for allOf, their union) documents all its keys.
    const tries = variants.map((v) => undocumentedKeys(spec, v, value, at));
    return tries.find((t) => t.length === 0) ?? tries[0] ?? [];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => undocumentedKeys(spec, s.items, v, `${at}[${i}]`));
  if (typeof value !== 'object') return [];
  if (!s.properties) return [];
  const problems: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const prop = s.properties[key];
    if (prop) problems.push(...undocumentedKeys(spec, prop, v, `${at}.${key}`));
    else if (s.additionalProperties === undefined || s.additionalProperties === false) {
      problems.push(`${at}.${key} is not documented`);
    }
  }
  return problems;
}

/** Required keys of `value` (and of its nested objects) that it leaves out. */
export function missingRequired(spec: Spec, schema: Schema | undefined, value: unknown, at = 'body'): string[] {
  const s = resolve(spec, schema);
  if (!s || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => missingRequired(spec, s.items, v, `${at}[${i}]`));
  const obj = value as Record<string, unknown>;
  const problems = (s.required ?? []).filter((k) => !(k in obj)).map((k) => `${at}.${k} is required`);
  for (const [key, v] of Object.entries(obj)) {
    if (s.properties?.[key]) problems.push(...missingRequired(spec, s.properties[key], v, `${at}.${key}`));
  }
  return problems;
}

/**
 * A form-encoded body as the fields it stands for: bracketed keys nest as Stripe encodes them
 * (`metadata[client_id]=x` is `{ metadata: { client_id } }`, `types[0]=card` is `{ types: ['card'] }`);
 * plain keys (OAuth token endpoints) stay as they are.
 */
export function formFields(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter(Boolean);
    let node: Record<string, unknown> = out;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= /^\d+$/.test(parts[i + 1]!) ? [] : {}) as Record<string, unknown>;
    });
  }
  return out;
}

/**
 * Reply fields a caller reads (`a.b`, `data.*.id` for each item of an array) that `schema` does not
 * document, through `$ref`s and any variant of `anyOf`/`oneOf`/`allOf` (an expandable field is a
 * string id or the object); under a map (`additionalProperties`, e.g. `metadata`) any key is documented.
 */
export function undocumentedFields(spec: Spec, schema: Schema | undefined, fields: string[]): string[] {
  const has = (s0: Schema | undefined, steps: string[]): boolean => {
    const s = resolve(spec, s0);
    if (!s) return false;
    if (!steps.length) return true;
    const variants = [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])];
    if (variants.some((v) => has(v, steps))) return true;
    const [step, ...rest] = steps;
    if (step === '*') return has(s.items, rest);
    if (s.properties?.[step!]) return has(s.properties[step!], rest);
    return s.additionalProperties !== undefined && s.additionalProperties !== false;
  };
  return fields.filter((f) => !has(schema, f.split('.'))).map((f) => `reply field ${f} is not documented`);
}

/** The documented JSON reply schema of an operation for a status (`200`, or `default` for errors). */
export function replySchema(spec: Spec, req: { method: string; path: string }, status = '200') {
  const op = operationOf(spec, req)?.op;
  return op?.responses?.[status]?.content?.['application/json']?.schema;
}

/**
 * Everything undocumented in one request; empty when it matches the description. `strict` also
 * reports an operation the description marks deprecated and required body keys left out, and reads
 * a form-encoded body (OAuth token endpoints) as its fields.
 */
export function checkRequest(spec: Spec, req: SentRequest, opts: { strict?: boolean } = {}): string[] {
  const found = operationOf(spec, req);
  if (!found) return [`${req.method} ${req.path} is not a documented operation`];
  const { op, template } = found;
  const params = op.parameters ?? [];
  const problems: string[] = [];
  if (opts.strict && op.deprecated) problems.push(`${req.method} ${template} is deprecated`);
  const form = op.requestBody?.content?.['application/x-www-form-urlencoded'];
  if (opts.strict && form && typeof req.body === 'string') {
    req = { ...req, body: formFields(req.body) };
  }
  const documented = new Set(params.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of new Set(req.query.keys())) {
    const bare = name.replace(/\[.*$/, '');
    if (!documented.has(bare)) problems.push(`${req.method} ${template}: query ${name} is not documented`);
  }
  if (req.body !== undefined) {
    const formData = params.filter((p) => p.in === 'formData');
    const content = op.requestBody?.content ?? {};
    const schema = Object.values(content)[0]?.schema;
    if (formData.length) {
      const names = new Set(formData.map((p) => p.name));
      for (const key of Object.keys(req.body as object)) {
        if (!names.has(key)) problems.push(`${req.method} ${template}: body.${key} is not documented`);
      }
    } else if (schema) {
      problems.push(...undocumentedKeys(spec, schema, req.body).map((p) => `${req.method} ${template}: ${p}`));
      if (opts.strict) {
        problems.push(...missingRequired(spec, schema, req.body).map((p) => `${req.method} ${template}: ${p}`));
      }
    } else {
      problems.push(`${req.method} ${template}: takes no body`);
    }
  }
  return problems;
}

/**
 * A recording proxy in front of a vendor fake on loopback: the adapter talks to it, it forwards
 * everything and keeps each request's method, path, query and parsed JSON body.
 */
export async function recordingProxy(target: string) {
  const upstream = new URL(target);
  const sent: SentRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', upstream.origin);
      let body: unknown;
      if (raw.length) {
        try {
          body = JSON.parse(raw.toString('utf8')) as unknown;
        } catch {
          body = raw.toString('utf8');
        }
      }
      sent.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body,
        headers: { ...req.headers },
      });
      const out = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (reply) => {
          res.writeHead(reply.statusCode ?? 502, reply.headers);
          reply.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(raw);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    /** The fake's URL with the proxy's origin (same path). */
    url: `http://127.0.0.1:${port}${upstream.pathname}`.replace(/\/+$/, ''),
    sent,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
