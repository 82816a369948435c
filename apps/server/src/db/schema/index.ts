export * from './identity.ts';
export * from './integrations.ts';
export * from './mail.ts';
