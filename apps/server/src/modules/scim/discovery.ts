import { PRODUCT_NAME } from '@rally/shared';
import { GROUP_SCHEMA } from './groups.ts';
import { LIST_SCHEMA, USER_SCHEMA } from './users.ts';

/**
 * The discovery endpoints of RFC 7644 §4: what this service provider supports
 * (ServiceProviderConfig, RFC 7643 §5), its resource types (§6) and their schemas (§7), limited to
 * the attributes Rally keeps.
 */
export const MAX_RESULTS = 200;

type Attr = {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable';
  uniqueness?: 'none' | 'server';
  description: string;
  subAttributes?: Attr[];
  referenceTypes?: string[];
};

/** An attribute definition with RFC 7643 §7's defaults filled in. */
function attr(a: Attr): Record<string, unknown> {
  return {
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...a,
    ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attr) } : {}),
  };
}

const USER_ATTRIBUTES: Attr[] = [
  {
    name: 'userName',
    type: 'string',
    required: true,
    uniqueness: 'server',
    mutability: 'immutable',
    description: "The member's e-mail address, on a verified domain of the client. Cannot change.",
  },
  {
    name: 'name',
    type: 'complex',
    description: "The member's name.",
    subAttributes: [
      { name: 'givenName', type: 'string', description: 'Given (first) name.' },
      { name: 'familyName', type: 'string', description: 'Family (last) name.' },
      { name: 'formatted', type: 'string', mutability: 'readOnly', description: 'The full name.' },
    ],
  },
  { name: 'displayName', type: 'string', mutability: 'readOnly', description: 'The name shown in Rally.' },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    description: 'The userName, as the primary work address.',
    subAttributes: [
      { name: 'value', type: 'string', description: 'The address.' },
      { name: 'type', type: 'string', description: 'Always work.' },
      { name: 'primary', type: 'boolean', description: 'Always true.' },
    ],
  },
  {
    name: 'active',
    type: 'boolean',
    description: 'False takes the member out of the client at once and ends their sessions there.',
  },
  {
    name: 'groups',
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    description: "The group of the member's role, when provisioning manages it.",
    subAttributes: [
      { name: 'value', type: 'string', description: 'The group id (the role).' },
      { name: 'display', type: 'string', description: 'The group name.' },
    ],
  },
];

const GROUP_ATTRIBUTES: Attr[] = [
  {
    name: 'displayName',
    type: 'string',
    required: true,
    mutability: 'readOnly',
    uniqueness: 'server',
    description: 'The role: Admin, Manager, SDR or Viewer.',
  },
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: 'The provisioned members with this role.',
    subAttributes: [
      { name: 'value', type: 'string', mutability: 'immutable', description: 'The User id.' },
      { name: 'display', type: 'string', mutability: 'readOnly', description: "The member's userName." },
      {
        name: '$ref',
        type: 'reference',
        referenceTypes: ['User'],
        mutability: 'immutable',
        description: 'The User.',
      },
    ],
  },
];

export function discovery(baseUrl: string) {
  const schemas = [
    {
      id: USER_SCHEMA,
      name: 'User',
      description: `A member of a ${PRODUCT_NAME} client`,
      attributes: USER_ATTRIBUTES,
    },
    {
      id: GROUP_SCHEMA,
      name: 'Group',
      description: `A role in a ${PRODUCT_NAME} client`,
      attributes: GROUP_ATTRIBUTES,
    },
  ].map((s) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    ...s,
    attributes: s.attributes.map(attr),
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${s.id}` },
  }));
  const resourceTypes = [
    {
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'Members of the client',
      schema: USER_SCHEMA,
    },
    {
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: "The client's roles",
      schema: GROUP_SCHEMA,
    },
  ].map((r) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    ...r,
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/${r.id}` },
  }));
  const list = <T>(items: T[]) => ({
    schemas: [LIST_SCHEMA],
    totalResults: items.length,
    itemsPerPage: items.length,
    startIndex: 1,
    Resources: items,
  });
  return {
    serviceProviderConfig: {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: MAX_RESULTS },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [
        {
          type: 'oauthbearertoken',
          name: 'Bearer token',
          description:
            'A provisioning token an owner makes in Settings › Domains, sent as Authorization: Bearer.',
          specUri: 'https://www.rfc-editor.org/info/rfc6750',
          primary: true,
        },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
    },
    resourceTypes,
    resourceTypeList: list(resourceTypes),
    schemas,
    schemaList: list(schemas),
  };
}
