export { authRoutes } from './routes.ts';
export { registerRoutes } from './register.ts';
export { findUserByEmail, findUser, selfOf } from './repository.ts';
export { startMfaChallenge } from './mfa-challenge.ts';
