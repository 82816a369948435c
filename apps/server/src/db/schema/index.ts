export * from './identity.ts';
export * from './integrations.ts';
export * from './crm.ts';
export * from './mail.ts';
export * from './content.ts';
export * from './engagement.ts';
export * from './billing.ts';
export * from './hookly.ts';
