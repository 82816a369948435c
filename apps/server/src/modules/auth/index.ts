export { authRoutes } from './routes.ts';
export { findUserByEmail, findUser, selfOf } from './repository.ts';
