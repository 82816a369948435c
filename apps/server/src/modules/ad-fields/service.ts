import type {
  AdFieldsBody,
  AdFieldsSettings,
  AdFieldsStatus,
  VendorField,
} from '@rally/shared/schemas/ad-delivery';
import type { Db } from '../../db/client.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { AdFieldsError } from '../integrations/ad-fields-port.ts';
import type { AdFieldsPort } from '../integrations/ad-fields-port.ts';
import { VendorAuthError, VendorError, VendorUnreachableError } from '../integrations/vendor-http.ts';
import { adapterContext } from './context.ts';
import { connectionOf, connectionsOf, isAdFieldSource, saveSettings, valueCounts } from './repository.ts';
import type { Integration, Settings } from './repository.ts';
import { writeSignature } from './writer.ts';
import type { AdFieldsWriter } from './writer.ts';

type Deps = {
  db: Db;
  box: SecretBox;
  ports: (source: string) => AdFieldsPort | undefined;
  publicUrl: string;
  writer: AdFieldsWriter;
};

/** A route's answer when the create call is refused: the message and what to do instead. */
export class CreateRefused extends Error {
  readonly instructions: string;
  constructor(message: string, instructions: string) {
    super(message);
    this.name = 'CreateRefused';
    this.instructions = instructions;
  }
}

function statusOf(integration: Integration, s: Settings | null): AdFieldsStatus {
  if (!s?.imageField || !s.clickField) return 'not_set_up';
  if (!s.enabled) return 'paused';
  if (s.lastError || !integration.isActive) return 'error';
  if (s.isWriting) return 'writing';
  return 'ready';
}

/** A vendor failure while the owner waits, in words for the owner (never a 500). */
function vendorFailure(err: unknown, vendor: string): Error {
  if (err instanceof AdFieldsError || err instanceof VendorAuthError) return httpError(409, err.message);
  if (err instanceof VendorUnreachableError)
    return httpError(502, `${vendor} could not be reached (${err.reason}).`);
  if (err instanceof VendorError) return httpError(502, `${vendor} refused the request (${err.status}).`);
  return err as Error;
}

const VENDOR_NAMES: Record<string, string> = {
  salesloft: 'Salesloft',
  outreach: 'Outreach',
  apolloio: 'Apollo',
  hubspot: 'HubSpot',
  salesforce: 'Salesforce',
  marketo: 'Marketo',
};

/** The settings behind the four ad-fields routes (routes.ts). */
export function createAdFieldsService(deps: Deps) {
  const { db } = deps;

  async function reply(integration: Integration, s: Settings | null): Promise<AdFieldsSettings> {
    if (!isAdFieldSource(integration.source))
      throw new Error(`not an ad-fields source: ${integration.source}`);
    const port = deps.ports(integration.source);
    const fields = s?.imageField && s.clickField ? { image: s.imageField, click: s.clickField } : null;
    const counts = fields
      ? await valueCounts(db, integration.id, writeSignature(deps.publicUrl, fields))
      : { written: 0, failed: 0 };
    const canCreate = Boolean(port?.create);
    return {
      integration_id: integration.id,
      source: integration.source,
      image_field: s?.imageField ?? null,
      click_field: s?.clickField ?? null,
      enabled: Boolean(s?.enabled && fields),
      status: statusOf(integration, s),
      can_create_fields: canCreate,
      instructions: canCreate ? null : (port?.instructions ?? null),
      targets_written: counts.written,
      targets_pending: s?.pendingCount ?? 0,
      targets_failed: counts.failed,
      last_written_at: s?.lastWrittenAt?.toISOString() ?? null,
      last_error: s?.lastError ?? (integration.isActive ? null : integration.lastError),
    };
  }

  /** The connection of the client, with its port; 404 for another client's or an unknown one. */
  async function connection(clientId: string, integrationId: number) {
    const row = await connectionOf(db, clientId, integrationId);
    const port = row ? deps.ports(row.integration.source) : undefined;
    if (!row || !port) throw httpError(404, 'Not found: this client has no such connection');
    return { ...row, port };
  }

  function contextFor(integration: Integration) {
    if (!integration.isActive || !integration.credentialsEnc) {
      throw httpError(
        409,
        `${VENDOR_NAMES[integration.source]} is not connected: reconnect it in Settings › Connections first.`,
      );
    }
    return adapterContext(
      db,
      deps.box,
      { id: integration.id, credentialsEnc: integration.credentialsEnc },
      true,
    );
  }

  return {
    async list(clientId: string): Promise<AdFieldsSettings[]> {
      const rows = await connectionsOf(db, clientId);
      const out: AdFieldsSettings[] = [];
      for (const r of rows) {
        if (deps.ports(r.integration.source)) out.push(await reply(r.integration, r.settings));
      }
      return out;
    },

    async update(clientId: string, integrationId: number, body: AdFieldsBody): Promise<AdFieldsSettings> {
      const { integration, port } = await connection(clientId, integrationId);
      if (body.image_field === body.click_field) {
        throw fieldError('body.click_field', 'must be another field than the image field');
      }
      // Each name must be a field of the vendor's person record that can hold a URL.
      const vendor = VENDOR_NAMES[integration.source] ?? integration.source;
      let offered;
      try {
        offered = new Set((await port.available(contextFor(integration))).map((f) => f.name));
      } catch (err) {
        throw vendorFailure(err, vendor);
      }
      for (const key of ['image_field', 'click_field'] as const) {
        if (!offered.has(body[key])) {
          throw fieldError(
            `body.${key}`,
            `is not a ${vendor} field that can hold a URL: pick one of the fields offered`,
          );
        }
      }
      await saveSettings(
        db,
        { integrationId, clientId },
        {
          imageField: body.image_field,
          clickField: body.click_field,
          enabled: body.enabled,
          lastError: null,
        },
      );
      if (body.enabled) await deps.writer.request(integrationId);
      const row = await connectionOf(db, clientId, integrationId);
      return reply(integration, row?.settings ?? null);
    },

    async available(clientId: string, integrationId: number): Promise<VendorField[]> {
      const { integration, port } = await connection(clientId, integrationId);
      try {
        return await port.available(contextFor(integration));
      } catch (err) {
        throw vendorFailure(err, VENDOR_NAMES[integration.source] ?? integration.source);
      }
    },

    async create(clientId: string, integrationId: number): Promise<AdFieldsSettings> {
      const { integration, port } = await connection(clientId, integrationId);
      const vendor = VENDOR_NAMES[integration.source] ?? integration.source;
      if (!port.create) {
        throw new CreateRefused(
          `${vendor}'s API cannot create fields: create them in ${vendor}.`,
          port.instructions,
        );
      }
      let names;
      try {
        names = await port.create(contextFor(integration));
      } catch (err) {
        if (err instanceof AdFieldsError) throw new CreateRefused(err.message, port.instructions);
        throw vendorFailure(err, vendor);
      }
      await saveSettings(
        db,
        { integrationId, clientId },
        { imageField: names.image, clickField: names.click, enabled: true, lastError: null },
      );
      await deps.writer.request(integrationId);
      const row = await connectionOf(db, clientId, integrationId);
      return reply(integration, row?.settings ?? null);
    },
  };
}

export type AdFieldsService = ReturnType<typeof createAdFieldsService>;
