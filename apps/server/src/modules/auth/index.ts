export { authRoutes } from './routes.ts';
export { findUserByEmail, findUser, selfOf } from './repository.ts';
export { startMfaChallenge } from './mfa-challenge.ts';
