// The Meta fake lives under src/demo-networks (decision 0037): `npm start`'s demo serves it in
// process, and src must not import test code. Tests keep importing it from here.
export * from '../../src/demo-networks/meta-fake.ts';
