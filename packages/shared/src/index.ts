export * from './constants/product.ts';
export * from './constants/permissions.ts';
export * from './routes.ts';
